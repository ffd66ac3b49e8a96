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
  type BreakdownRow,
  COLUMN_METRICS,
  summarize,
  type Summary,
} from "../metrics/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";

/** A run with everything its reports show. */
export interface RunReport {
  /** The run record. */
  run: RunJson;
  /** Its summary (the run record's, or computed from the decisions when it has none). */
  summary: Summary;
  /** Its decisions, in dataset order. */
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
}

/**
 * The breakdowns a report shows: by question type, workflow and question, each with the column
 * metrics' bootstrap intervals.
 *
 * @param records The run's decisions.
 * @param seed The bootstrap seed (the run's).
 * @returns The three breakdowns.
 */
export function reportBreakdowns(
  records: readonly DecisionRecord[],
  seed: number,
): ReportBreakdowns {
  // Breakdown tables show the column metrics only: bootstrapping the others per group (the
  // sample-form calibration measures above all) would only cost time.
  return {
    byType: breakdown(records, "type", { seed, metrics: COLUMN_METRICS }),
    byWorkflow: breakdown(records, "workflow", { seed, metrics: COLUMN_METRICS }),
    byQuestion: breakdown(records, "question", { seed, metrics: COLUMN_METRICS }),
  };
}

/**
 * Computes a run's report model: its summary and the three breakdowns, once.
 *
 * @param run The run record.
 * @param records Its decisions.
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
  return {
    run,
    summary: run.summary ?? summarize(records, { seed }),
    records,
    info,
    ...(options.breakdowns ?? reportBreakdowns(records, seed)),
  };
}
