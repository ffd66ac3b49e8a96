/**
 * Private: the run's accumulator sink. For now it collects every decision (the one place a run
 * holds them) and computes the summary, thresholds and report model from them at the end; a
 * bounded-memory accumulator that sums each case as it comes takes its place behind the same
 * methods.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import type {
  AnsweredCase,
  DecisionRecord,
  RunJson,
  RunSink,
  ThresholdResult,
} from "../record/mod.ts";
import { buildReport, type RunReport } from "../report/mod.ts";
import { summarize, type Summary } from "../metrics/mod.ts";
import type { Workflow } from "./schemas.ts";
import { evaluateThresholds } from "./thresholds.ts";

/** Collects the run's decisions by case position and summarises them at the end. */
export class RecordCollector implements RunSink {
  // Each case's decisions at its position in the case source.
  #byIndex: (readonly DecisionRecord[])[] = [];
  #cases = 0;
  #records: DecisionRecord[] | null = null;

  /** Cases collected. */
  get cases(): number {
    return this.#cases;
  }

  /**
   * Keeps the case's decisions.
   *
   * @param answered The case and its decisions.
   */
  case(answered: AnsweredCase): void {
    if (this.#byIndex[answered.index] === undefined) this.#cases++;
    this.#byIndex[answered.index] = answered.records;
    this.#records = null;
  }

  /**
   * Every decision collected, in the case source's order (whatever order they were answered in).
   *
   * @returns The decisions.
   */
  records(): DecisionRecord[] {
    if (this.#records === null) {
      const out: DecisionRecord[] = [];
      for (const list of this.#byIndex) {
        if (list !== undefined) {
          for (const r of list) out.push(r);
        }
      }
      this.#records = out;
    }
    return this.#records;
  }

  /**
   * The run's summary.
   *
   * @param seed The bootstrap seed.
   * @returns The summary.
   */
  summary(seed: number): Summary {
    return summarize(this.records(), { seed });
  }

  /**
   * The workflow's thresholds checked against the decisions.
   *
   * @param workflow The workflow.
   * @returns One result per threshold.
   */
  thresholds(workflow: Workflow): ThresholdResult[] {
    return evaluateThresholds(workflow.thresholds, this.records(), { seed: workflow.seed });
  }

  /**
   * The report model of the finished run.
   *
   * @param run The final run record.
   * @param info The question set's info.
   * @returns The report model.
   */
  report(run: RunJson, info: DatasetInfo): RunReport {
    return buildReport(run, this.records(), info);
  }
}
