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

/** Breakdown rows computed ahead, by group key: a workflow's row and its questions' rows. */
export interface KnownRows {
  /** Rows by workflow. */
  byWorkflow: Map<string, BreakdownRow>;
  /** Rows by question (`workflow/question`). */
  byQuestion: Map<string, BreakdownRow>;
}

/**
 * The breakdowns a report shows: by question type, workflow and question, each with the column
 * metrics' bootstrap intervals.
 *
 * @param records The run's decisions.
 * @param seed The bootstrap seed (the run's).
 * @param known Rows of workflows computed ahead ({@linkcode addWorkflowRows}, same seed).
 * @returns The three breakdowns.
 */
export function reportBreakdowns(
  records: readonly DecisionRecord[],
  seed: number,
  known?: KnownRows,
): ReportBreakdowns {
  // Breakdown tables show the column metrics only: bootstrapping the others per group (the
  // sample-form calibration measures above all) would only cost time.
  const options = { seed, metrics: COLUMN_METRICS };
  return {
    byType: breakdown(records, "type", options),
    byWorkflow: breakdown(records, "workflow", { ...options, known: known?.byWorkflow }),
    byQuestion: breakdown(records, "question", { ...options, known: known?.byQuestion }),
  };
}

/**
 * Computes ahead the rows of one workflow whose cases are all answered: its row by workflow
 * and its questions' rows, the same as {@linkcode reportBreakdowns} gives for them (a group's
 * row depends only on its own decisions).
 *
 * @param known Where the rows go.
 * @param records Every decision of the workflow, in dataset order (decisions of more than one
 *   workflow add nothing).
 * @param seed The bootstrap seed (the run's).
 */
export function addWorkflowRows(
  known: KnownRows,
  records: readonly DecisionRecord[],
  seed: number,
): void {
  // Only one workflow's decisions: with another's mixed in, its rows would be computed from
  // part of its decisions.
  const workflow = records[0]?.workflow;
  if (workflow === undefined || records.some((r) => r.workflow !== workflow)) return;
  const options = { seed, metrics: COLUMN_METRICS };
  for (const row of breakdown(records, "workflow", options)) known.byWorkflow.set(row.key, row);
  for (const row of breakdown(records, "question", options)) known.byQuestion.set(row.key, row);
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
