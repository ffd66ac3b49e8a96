/**
 * Private: the run's accumulator sink. Each answered case is summed into bounded accumulators as
 * it comes — the summary and the breakdowns by question type, workflow and question (one
 * `MetricsAccumulator`), one accumulator per threshold over the decisions it covers, and the
 * report's own bounded state (`ReportAccumulator`) — so a run of any size holds no decision.
 *
 * Cases are summed in the case source's order: a case answered before an earlier one waits in a
 * small reorder window (at most `REORDER_WINDOW` cases; when it is full the earliest waiting case
 * goes in), so the sums, and the last bits of every figure, do not depend on the order requests
 * came back in.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import type { AnsweredCase, RunJson, RunSink, ThresholdResult } from "../record/mod.ts";
import { ReportAccumulator, type RunReport } from "../report/mod.ts";
import { MetricsAccumulator, type Summary } from "../metrics/mod.ts";
import type { Workflow } from "./schemas.ts";
import { ThresholdAccumulator } from "./thresholds.ts";

/** Most cases waiting for an earlier one before they are summed out of order. */
export const REORDER_WINDOW = 4096;

/** Options of {@linkcode RunAccumulator}. */
export interface RunAccumulatorOptions {
  /**
   * Bootstrap replicates.
   *
   * @default 1000
   */
  resamples?: number | undefined;
  /**
   * Most decisions in the report's sample.
   *
   * @default {SAMPLE_DECISIONS}
   */
  sampleDecisions?: number | undefined;
}

/** Sums the run's decisions case by case and gives the summary, thresholds and report. */
export class RunAccumulator implements RunSink {
  readonly #metrics: MetricsAccumulator;
  readonly #thresholds: ThresholdAccumulator;
  readonly #report: ReportAccumulator;
  readonly #pending = new Map<number, AnsweredCase>();
  #next = 0;
  #cases = 0;

  /**
   * An empty accumulator for one run.
   *
   * @param workflow The run's workflow (its seed and thresholds).
   * @param options Replicates and the report's sample (tests make them small).
   */
  constructor(
    workflow: Pick<Workflow, "seed" | "thresholds">,
    options: RunAccumulatorOptions = {},
  ) {
    const { resamples, sampleDecisions } = options;
    const seed = workflow.seed;
    this.#metrics = new MetricsAccumulator({ seed, resamples, classes: true });
    this.#thresholds = new ThresholdAccumulator(workflow.thresholds, { seed, resamples });
    this.#report = new ReportAccumulator({ seed, sampleDecisions });
  }

  /** Cases summed or waiting. */
  get cases(): number {
    return this.#cases;
  }

  /** Bytes of the metric and threshold accumulators (they grow with groups, not cases). */
  get bytes(): number {
    return this.#metrics.bytes + this.#thresholds.bytes;
  }

  /** The report's bounded state: decisions in its sample and its other entries. */
  get reportState(): { sampled: number; entries: number } {
    return { sampled: this.#report.sampled, entries: this.#report.entries };
  }

  /** Cases waiting in the reorder window. */
  get waiting(): number {
    return this.#pending.size;
  }

  /**
   * Sums the case (after the earlier cases of the source that are still to come, within the
   * reorder window).
   *
   * @param answered The case and its decisions.
   */
  case(answered: AnsweredCase): void {
    this.#cases++;
    this.#pending.set(answered.index, answered);
    if (this.#pending.size > REORDER_WINDOW) {
      this.#next = Math.min(...this.#pending.keys());
    }
    this.#drain();
  }

  #drain(): void {
    for (let answered = this.#pending.get(this.#next); answered !== undefined;) {
      this.#pending.delete(this.#next);
      this.#add(answered);
      this.#next++;
      answered = this.#pending.get(this.#next);
    }
  }

  #flush(): void {
    for (const index of [...this.#pending.keys()].sort((a, b) => a - b)) {
      this.#next = index;
      this.#drain();
    }
  }

  #add({ records, item }: AnsweredCase): void {
    const id = records[0]?.case;
    if (id === undefined) return;
    this.#metrics.addCase(id, records, item.questions);
    this.#thresholds.addCase(id, records);
    this.#report.addCase(id, records);
  }

  /**
   * The run's summary.
   *
   * @returns The summary.
   */
  summary(): Summary {
    this.#flush();
    return this.#metrics.summary();
  }

  /**
   * The workflow's thresholds checked against the decisions.
   *
   * @returns One result per threshold.
   */
  thresholds(): ThresholdResult[] {
    this.#flush();
    return this.#thresholds.results();
  }

  /**
   * The report model of the finished run.
   *
   * @param run The final run record.
   * @param info The question set's info.
   * @returns The report model.
   */
  report(run: RunJson, info: DatasetInfo): RunReport {
    this.#flush();
    return this.#report.report(run, info, this.#metrics);
  }
}
