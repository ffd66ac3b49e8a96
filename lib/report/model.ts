/**
 * The report model: everything the terminal, Markdown and HTML reports show, computed once per
 * run — the summary and the breakdowns by question type, workflow and question with their
 * bootstrap intervals — and handed to every renderer.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import {
  breakdown,
  BREAKDOWN_INTERVAL_METRICS,
  type BreakdownRow,
  COLUMN_METRICS,
  summarize,
  type Summary,
} from "../metrics/mod.ts";
import { type DecisionRecord, inCaseOrder, type RunJson } from "../record/mod.ts";

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
}

/** Options for {@linkcode buildReport}. */
export interface BuildReportOptions {
  /**
   * Bootstrap seed of the summary (when the run has none) and the breakdowns.
   *
   * @default {run.spec.seed}
   */
  seed?: number | undefined;
}

/**
 * Computes a run's report model: its summary and the three breakdowns (by question type, workflow
 * and question, each with the column metrics and the bootstrap intervals of those shown with one,
 * `BREAKDOWN_INTERVAL_METRICS`: accuracy; the others' intervals are null), once.
 *
 * @param run The run record.
 * @param records Its decisions, in any order.
 * @param info Dataset info.
 * @param options The bootstrap seed.
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
  // By case id: the same figures and rows whatever order the decisions were answered and listed in.
  records = inCaseOrder(records);
  // Breakdown tables show the column metrics only, and only accuracy with its interval:
  // bootstrapping the others per group would only cost time.
  const byGroup = {
    seed,
    metrics: COLUMN_METRICS,
    intervalMetrics: BREAKDOWN_INTERVAL_METRICS,
  };
  return {
    run,
    summary: run.summary ?? summarize(records, { seed }),
    records,
    info,
    byType: breakdown(records, "type", byGroup),
    byWorkflow: breakdown(records, "workflow", byGroup),
    byQuestion: breakdown(records, "question", byGroup),
  };
}
