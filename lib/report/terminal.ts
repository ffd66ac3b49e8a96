/**
 * The terminal report: tables by type and workflow, reliability table, summary with rating,
 * latency, tokens and the dataset attribution.
 *
 * @module
 */
import { attribution, type DatasetInfo } from "../dataset/mod.ts";
import { breakdown, type BreakdownRow, type Summary } from "../metrics/mod.ts";
import { protocolNote, runRating, thresholdName } from "./protocol.ts";
import type { DecisionRecord, RunJson } from "../record/schemas.ts";
import { interval, num, pct, table } from "./format.ts";
import { breakdownData, reliabilityData } from "./tables.ts";
import { warningLines } from "./warnings.ts";

/** Options for the report renderers. */
export interface ReportOptions {
  /** Bootstrap seed. @default 0 */
  seed?: number;
  /** Markdown tables instead of text. @default false */
  markdown?: boolean;
}

/**
 * Rows of a breakdown table: group, n, accuracy with interval, KL, Brier, ECE, errors.
 *
 * @param rows Breakdown rows.
 * @param options Markdown or text.
 * @returns The table.
 */
export function breakdownTable(rows: readonly BreakdownRow[], options: ReportOptions = {}): string {
  const data = breakdownData(rows);
  return table(data.header, data.rows, options.markdown ? { markdown: true } : {});
}

/**
 * The reliability table of a summary.
 *
 * @param summary The summary.
 * @param options Markdown or text.
 * @returns The table.
 */
export function reliabilityText(summary: Summary, options: ReportOptions = {}): string {
  const data = reliabilityData(summary);
  return table(data.header, data.rows, options.markdown ? { markdown: true } : {});
}

/**
 * The summary block: status, rating, headline metrics with intervals, latency, tokens.
 *
 * @param run The run record.
 * @param summary Its summary.
 * @returns Lines of text.
 */
export function summaryLines(run: RunJson, summary: Summary): string[] {
  const iv = summary.intervals;
  const lines = [
    `status      ${run.status}${run.fatal ? ` — ${run.fatal}` : ""}`,
    `rating      ${runRating(run.spec, summary)}`,
    `decisions   ${summary.decisions} (${summary.answered} answered, ${summary.errors} errors) of ${run.spec.cases} cases × questions`,
    `accuracy    ${pct(summary.accuracy)} ${interval(iv.accuracy, true)}`,
    `KL          ${num(summary.kl)} ${interval(iv.kl)}`,
    `Brier       ${num(summary.brier)} ${interval(iv.brier)}`,
    `ECE         ${num(summary.ece)} ${interval(iv.ece)} (standard 10-bin; not the card's ECE)`,
    `confidence  ${num(summary.meanConfidence)} mean top probability`,
    `latency     ${
      summary.latency
        ? `p50 ${summary.latency.p50.toFixed(1)} ms, p95 ${summary.latency.p95.toFixed(1)} ms`
        : "n/a"
    }`,
    `tokens      ${summary.inputTokens ?? "n/a"} input, 0 output`,
  ];
  if (!run.spec.calibrated) {
    lines.push(
      "calibration this engine's probabilities are uncalibrated: confidence thresholds do not transfer to calibrated engines",
    );
  }
  const note = protocolNote(run.spec);
  if (note !== null) lines.push(`protocol    ${note}`);
  for (const t of run.thresholds) {
    lines.push(
      `threshold   ${thresholdName(t)} ${t.op} ${t.limit}: ${
        t.value === null ? "n/a" : num(t.value)
      }${
        t.estimate !== undefined
          ? ` (estimate ${t.estimate === null ? "n/a" : num(t.estimate)})`
          : ""
      } ${t.pass ? "pass" : "FAIL"}`,
    );
  }
  return lines;
}

/**
 * The full terminal report of a run.
 *
 * @param run The run record.
 * @param records Its decisions.
 * @param info Dataset info for the attribution line.
 * @param options Seed.
 * @returns The report text.
 */
export function terminalReport(
  run: RunJson,
  records: readonly DecisionRecord[],
  info: DatasetInfo,
  options: ReportOptions = {},
): string {
  const seed = options.seed ?? run.spec.seed;
  const summary = run.summary as unknown as Summary;
  return [
    `decibench · ${run.spec.workflow} · ${run.spec.endpoint} · model ${run.spec.model}${
      run.model_reported && run.model_reported !== run.spec.model
        ? ` (answered by ${run.model_reported})`
        : ""
    }`,
    "",
    "By question type",
    breakdownTable(breakdown(records, "type", { seed })),
    "",
    "By workflow",
    breakdownTable(breakdown(records, "workflow", { seed })),
    "",
    "Reliability (answered decisions)",
    reliabilityText(summary),
    "",
    ...summaryLines(run, summary),
    ...warningLines(records).map((line) => `warning     ${line}`),
    "",
    `run         ${run.id}`,
    `data        ${attribution(info)}`,
  ].join("\n");
}
