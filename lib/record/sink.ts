/**
 * The one interface between a run loop and what it feeds. The loop is a source of answered cases:
 * it sends, validates and scores; everything that keeps or shows what it answered — the records
 * file, the accumulators behind the summary, the index, the report's trace, progress — is a sink,
 * told of the run's start, of each answered case as it is answered, and of the run's end. No sink
 * reaches into the loop, and the loop knows no sink but through this interface.
 *
 * It lives in `record`, the first folder whose files implement it (the records file, the index);
 * `report` and `workflow` implement it too.
 *
 * @module
 */
import type { Case } from "../dataset/mod.ts";
import type { DecisionRecord, RunJson } from "./schemas.ts";

/** How a case was asked by this invocation. */
export interface CaseAsked {
  /** Requests sent for it (retries included). */
  attempts: number;
  /** Latency of the answered request in ms, or null. */
  latencyMs: number | null;
  /** The error kind when it failed, or null. */
  error: string | null;
}

/** One case the run has an answer for (its decisions may carry an error). */
export interface AnsweredCase {
  /** The case. */
  item: Case;
  /** Its position in the run's case source (from 0): the question set's order. */
  index: number;
  /** Its scored decisions, one per question in the case's question order. */
  records: readonly DecisionRecord[];
  /**
   * How it was asked by this invocation, or null for a case kept from an earlier invocation of a
   * resumed run (its decisions are already in `decisions.jsonl`).
   */
  asked: CaseAsked | null;
}

/**
 * What a run feeds. Every method may be synchronous or return a promise; the loop calls the sinks
 * one after the other, in the order it was given them, and never two calls at once: `start` once,
 * `case` once per case (in the order cases are answered, kept cases of a resumed run included),
 * `finish` once with the final run record when the run ends, and `close` always, last (also when
 * the run fails). A sink that throws stops the run: no new request is sent, and the error is the
 * run's.
 */
export interface RunSink {
  /**
   * The run starts; `run.json` as first written (status `running`).
   *
   * @param run The run record.
   */
  start?(run: RunJson): Promise<void> | void;
  /**
   * One case is answered (or, with `asked` null, kept from an earlier invocation).
   *
   * @param answered The case and its decisions.
   */
  case(answered: AnsweredCase): Promise<void> | void;
  /**
   * The run ended; its final record (status, summary, thresholds, sessions).
   *
   * @param run The final run record.
   */
  finish?(run: RunJson): Promise<void> | void;
  /** Releases what the sink holds (files, databases), whether or not `finish` ran. */
  close?(): Promise<void> | void;
}
