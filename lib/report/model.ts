/**
 * The report model: everything the terminal, Markdown and HTML reports show, computed once per
 * run — the summary and the breakdowns by question type, workflow and question with their
 * bootstrap intervals — and handed to every renderer.
 *
 * @module
 */
import type { Case, DatasetInfo } from "../dataset/mod.ts";
import {
  BootstrapAccumulator,
  type BootstrapIntervals,
  bootstrapIntervals,
  breakdown,
  BREAKDOWN_INTERVAL_METRICS,
  BreakdownAccumulator,
  type BreakdownRow,
  COLUMN_METRICS,
  type PlannedCase,
  summarize,
  type Summary,
} from "../metrics/mod.ts";
import { type DecisionRecord, inCaseOrder, type RunJson } from "../record/mod.ts";
import type { CalibrationTables } from "./calibration_tables.ts";

/** A run with everything its reports show. */
export interface RunReport {
  /** The run record. */
  run: RunJson;
  /** Its summary (the run record's, or computed from the decisions when it has none). */
  summary: Summary;
  /** Its decisions, in the order the run's cases were given (`RunResult.records`) or read. */
  records: readonly DecisionRecord[];
  /** Dataset info for the attribution. */
  info: DatasetInfo;
  /** Breakdown by question type. */
  byType: BreakdownRow[];
  /** Breakdown by workflow. */
  byWorkflow: BreakdownRow[];
  /** Breakdown by question (`workflow/question`). */
  byQuestion: BreakdownRow[];
  /** The calibration section's tables, when computed ahead (else each renderer's first use does). */
  calibration?: CalibrationTables | undefined;
}

/** The three breakdowns of a report model. */
export type ReportBreakdowns = Pick<RunReport, "byType" | "byWorkflow" | "byQuestion">;

/** Options for {@linkcode buildReport}. */
export interface BuildReportOptions {
  /**
   * Bootstrap seed of the breakdowns.
   *
   * @default {run.spec.seed}
   */
  seed?: number | undefined;
  /** The breakdowns, when already computed (by {@linkcode reportBreakdowns}, same seed). */
  breakdowns?: ReportBreakdowns | undefined;
  /** The calibration tables, when already computed (by `calibrationTables`, the run's seed). */
  calibration?: CalibrationTables | undefined;
  /**
   * Bootstrap resamples of the summary (when the run has none) and of the breakdowns (when not
   * given); 0 leaves every interval null.
   *
   * @default {1000}
   */
  resamples?: number | undefined;
}

/**
 * The bootstraps of a run's summary and three breakdowns, fed while its cases are answered:
 * cases may come in any order (as answers arrive); each is added once every case planned before
 * it is in, so the sums are the ones `summarize` and {@linkcode reportBreakdowns} compute from
 * the decisions in dataset order.
 */
export class ReportAccumulator {
  readonly #summary: BootstrapAccumulator;
  readonly #byType: BreakdownAccumulator;
  readonly #byWorkflow: BreakdownAccumulator;
  readonly #byQuestion: BreakdownAccumulator;
  readonly #order = new Map<string, number>();
  readonly #waiting = new Map<number, DecisionRecord[]>();
  #next = 0;

  /**
   * Makes the empty bootstraps of every group the planned cases fall in.
   *
   * @param cases The run's cases (those kept from an earlier session too), in dataset order.
   * @param seed The bootstrap seed (the run's).
   */
  constructor(cases: readonly PlannedCase[], seed: number) {
    // Every additive metric of the summary (a run that plans no case has nothing to sum).
    this.#summary = new BootstrapAccumulator(Math.max(cases.length, 1), { seed });
    // Only the metrics whose intervals the breakdowns have.
    const options = { seed, metrics: BREAKDOWN_INTERVAL_METRICS };
    this.#byType = new BreakdownAccumulator(cases, "type", options);
    this.#byWorkflow = new BreakdownAccumulator(cases, "workflow", options);
    this.#byQuestion = new BreakdownAccumulator(cases, "question", options);
    cases.forEach((c, i) => this.#order.set(c.case, i));
  }

  /** The number of cases added to the sums so far (cases waiting for an earlier one are not). */
  get added(): number {
    return this.#next;
  }

  /**
   * Takes the decisions of answered cases, whole cases in any order.
   *
   * @param records Every decision of each case, in order; cases not planned are left out.
   */
  add(records: readonly DecisionRecord[]): void {
    for (const r of records) {
      const i = this.#order.get(r.case);
      if (i === undefined || i < this.#next) continue;
      const list = this.#waiting.get(i);
      if (list) list.push(r);
      else this.#waiting.set(i, [r]);
    }
    for (let list = this.#waiting.get(this.#next); list; list = this.#waiting.get(this.#next)) {
      this.#waiting.delete(this.#next++);
      this.#summary.add(list);
      this.#byType.add(list);
      this.#byWorkflow.add(list);
      this.#byQuestion.add(list);
    }
  }

  /**
   * The summary's intervals of the run's decisions (every registered metric), reading the fed
   * sums when they hold these decisions.
   *
   * @param records The run's decisions, in dataset order.
   * @param seed The bootstrap seed (the one the sums were made with).
   * @returns The intervals, as `bootstrapIntervals(records, { seed })` gives them.
   */
  intervals(records: readonly DecisionRecord[], seed: number): BootstrapIntervals {
    return bootstrapIntervals(records, { seed, accumulated: this.#summary });
  }

  /**
   * The breakdowns of the run's decisions, reading the fed sums where they hold.
   *
   * @param records The run's decisions, in dataset order.
   * @param seed The bootstrap seed (the one the sums were made with).
   * @returns The three breakdowns, as {@linkcode reportBreakdowns} computes them.
   */
  breakdowns(records: readonly DecisionRecord[], seed: number): ReportBreakdowns {
    return breakdownsOf(records, seed, [this.#byType, this.#byWorkflow, this.#byQuestion]);
  }
}

/**
 * The breakdowns a report shows: by question type, workflow and question, each with the column
 * metrics and the bootstrap intervals of those shown with one (`BREAKDOWN_INTERVAL_METRICS`:
 * accuracy); the others' intervals are null.
 *
 * @param records The run's decisions.
 * @param seed The bootstrap seed (the run's).
 * @returns The three breakdowns.
 */
export function reportBreakdowns(
  records: readonly DecisionRecord[],
  seed: number,
): ReportBreakdowns {
  return breakdownsOf(records, seed);
}

/** The three breakdowns, reading fed sums (one per grouping, in this order) where given. */
function breakdownsOf(
  records: readonly DecisionRecord[],
  seed: number,
  [byType, byWorkflow, byQuestion]: readonly (BreakdownAccumulator | undefined)[] = [],
  resamples?: number,
): ReportBreakdowns {
  // Breakdown tables show the column metrics only, and only accuracy with its interval:
  // bootstrapping the others per group would only cost time.
  const options = {
    seed,
    resamples,
    metrics: COLUMN_METRICS,
    intervalMetrics: BREAKDOWN_INTERVAL_METRICS,
  };
  return {
    byType: breakdown(records, "type", { ...options, accumulated: byType }),
    byWorkflow: breakdown(records, "workflow", { ...options, accumulated: byWorkflow }),
    byQuestion: breakdown(records, "question", { ...options, accumulated: byQuestion }),
  };
}

/**
 * The cases of a run as {@linkcode ReportAccumulator} plans them.
 *
 * @param cases The run's cases.
 * @returns Each case's id, workflow and questions in decision order.
 */
export function plannedCases(cases: readonly Case[]): PlannedCase[] {
  return cases.map((c) => ({
    case: c.id,
    workflow: c.workflow,
    questions: Object.entries(c.questions).map(([question, q]) => ({ question, type: q.type })),
  }));
}

/**
 * Computes a run's report model: its summary and the three breakdowns, once, over the decisions
 * by case id (`inCaseOrder`), so the figures do not depend on the order they were answered in.
 *
 * @param run The run record.
 * @param records Its decisions, in any order.
 * @param info Dataset info.
 * @param options Seed, and the breakdowns when already computed.
 * @returns The report model every renderer takes.
 * @example
 * ```ts ignore
 * import { buildReport, markdownReport, terminalReport } from "./mod.ts";
 * const report = buildReport(run, records, dataset.info);
 * console.log(terminalReport(report));
 * await Deno.writeTextFile("report.md", markdownReport(report));
 * ```
 */
export function buildReport(
  run: RunJson,
  records: readonly DecisionRecord[],
  info: DatasetInfo,
  options: BuildReportOptions = {},
): RunReport {
  const seed = options.seed ?? run.spec.seed;
  const { resamples } = options;
  // By case id: the same figures whatever order the decisions were answered and listed in.
  records = inCaseOrder(records);
  return {
    run,
    summary: run.summary ?? summarize(records, { seed, resamples }),
    records,
    info,
    ...(options.breakdowns ?? breakdownsOf(records, seed, [], resamples)),
    ...(options.calibration !== undefined ? { calibration: options.calibration } : {}),
  };
}
