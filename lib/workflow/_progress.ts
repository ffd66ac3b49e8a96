/**
 * Private: the run's progress sink, turning the run's start, each case asked and its end into
 * `RunEvent`s.
 *
 * @module
 */
import type { AnsweredCase, RunJson, RunSink } from "../record/mod.ts";
import type { RunEvent } from "./run.ts";

/** What the start event says besides the run record. */
export interface ProgressContext {
  /** The run directory. */
  dir: string;
  /** Cases the run asks in all. */
  cases: number;
  /** Decisions the run asks in all. */
  decisions: number;
  /** Cases kept from an earlier invocation. */
  resumed: number;
  /**
   * Correct decisions among the kept cases'.
   * @default 0
   */
  keptCorrect?: number | undefined;
  /**
   * Labelled decisions (with gold) among the kept cases'.
   * @default 0
   */
  keptLabelled?: number | undefined;
}

/** Emits the run's `start`, `case` and `summary` events. */
export class ProgressSink implements RunSink {
  #done: number;

  /**
   * @param emit Receives the events.
   * @param context Directory and counts.
   */
  constructor(
    readonly emit: (event: RunEvent) => void,
    readonly context: ProgressContext,
  ) {
    this.#done = context.resumed;
  }

  /**
   * Emits `start`.
   *
   * @param run The run record.
   */
  start(run: RunJson): void {
    this.emit({
      event: "start",
      run_id: run.id,
      dir: this.context.dir,
      workflow: run.spec.workflow,
      endpoint: run.spec.endpoint,
      model: run.spec.model,
      cases: this.context.cases,
      decisions: this.context.decisions,
      fingerprint: run.spec.fingerprint,
      resumed: this.context.resumed,
      kept_correct: this.context.keptCorrect ?? 0,
      kept_labelled: this.context.keptLabelled ?? 0,
      ...(run.spec.sample !== undefined ? { sample: run.spec.sample } : {}),
    });
  }

  /**
   * Emits `case` for a case asked by this invocation (a kept case is counted by `start`).
   *
   * @param answered The case and its decisions.
   */
  case(answered: AnsweredCase): void {
    const { item, records, asked } = answered;
    if (asked === null) return;
    this.#done++;
    let correct = 0;
    let labelled = 0;
    for (const r of records) {
      if (r.gold === null || r.correct === null) continue; // unlabelled: neither right nor wrong
      labelled++;
      if (r.correct) correct++;
    }
    this.emit({
      event: "case",
      case: item.id,
      workflow: item.workflow,
      done: this.#done,
      total: this.context.cases,
      correct,
      questions: records.length,
      labelled,
      error: asked.error,
      attempts: asked.attempts,
      latency_ms: asked.latencyMs,
    });
  }

  /**
   * Emits `summary`.
   *
   * @param run The final run record.
   */
  finish(run: RunJson): void {
    if (run.summary === null) return;
    this.emit({
      event: "summary",
      run_id: run.id,
      status: run.status,
      dir: this.context.dir,
      summary: run.summary,
      thresholds: run.thresholds,
    });
  }
}
