/**
 * Per-lane and per-question results of an Every Eval Ever record (its subtasks): the decisions,
 * streamed once, are fed case by case to a metrics accumulator that keeps the lane (workflow) and
 * question breakdowns, in memory that grows with the number of groups, never of decisions. The
 * intervals are the same seeded Poisson bootstrap as the run's report.
 *
 * @module
 */
import {
  BREAKDOWN_INTERVAL_METRICS,
  type BreakdownKey,
  COLUMN_METRICS,
  MetricsAccumulator,
} from "../metrics/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";

/** One subtask's figures. */
export interface SubtaskRow {
  /** `lane` (a workflow) or `question` (`workflow/question`). */
  level: "lane" | "question";
  /** The group. */
  key: string;
  /** Decisions in the group. */
  decisions: number;
  /** Answered decisions. */
  answered: number;
  /** Failed decisions. */
  errors: number;
  /** Column metric values by registry name (null: n/a). */
  metrics: Record<string, number | null | undefined>;
  /** Intervals by registry name, where bootstrapped. */
  intervals: Record<string, readonly [number, number] | null | undefined>;
}

/** Collects the subtasks of a run from its decisions, in record order. */
export class SubtaskCollector {
  readonly #acc: MetricsAccumulator;
  #case: string | null = null;
  #pending: DecisionRecord[] = [];

  /**
   * Makes an empty collector.
   *
   * @param seed The run's bootstrap seed.
   */
  constructor(seed: number) {
    this.#acc = new MetricsAccumulator({
      seed,
      metrics: COLUMN_METRICS,
      intervalMetrics: [],
      breakdowns: ["workflow", "question"],
      breakdownMetrics: COLUMN_METRICS,
      breakdownIntervalMetrics: BREAKDOWN_INTERVAL_METRICS,
    });
  }

  /**
   * Adds one decision (a case's decisions are consecutive in `decisions.jsonl`).
   *
   * @param record The decision.
   */
  add(record: DecisionRecord): void {
    if (record.case !== this.#case) this.#flush();
    this.#case = record.case;
    this.#pending.push(record);
  }

  #flush(): void {
    if (this.#case !== null && this.#pending.length > 0) {
      this.#acc.addCase(this.#case, this.#pending);
    }
    this.#pending = [];
  }

  /**
   * The subtasks: lanes first, then questions, each in the order they came.
   *
   * @returns The rows.
   */
  rows(): SubtaskRow[] {
    this.#flush();
    const out: SubtaskRow[] = [];
    const levels: [BreakdownKey, SubtaskRow["level"]][] = [["workflow", "lane"], [
      "question",
      "question",
    ]];
    for (const [by, level] of levels) {
      for (const row of this.#acc.breakdown(by)) {
        out.push({
          level,
          key: row.key,
          decisions: row.decisions,
          answered: row.answered,
          errors: row.errors,
          metrics: { ...row.metrics },
          intervals: { ...row.intervals } as SubtaskRow["intervals"],
        });
      }
    }
    return out;
  }
}
