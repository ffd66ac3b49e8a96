/**
 * The report tables as data (header and rows of text), rendered by the terminal, Markdown and
 * HTML reports alike so the three never drift apart.
 *
 * @module
 */
import {
  BREAKDOWN_INTERVAL_METRICS,
  type BreakdownRow,
  COLUMN_METRICS,
  METRIC_REGISTRY,
  type Summary,
} from "../metrics/mod.ts";
import type { RunJson } from "../record/mod.ts";
import { type LevelsOf, levelText } from "../dataset/mod.ts";
import type { DisagreementRow } from "./model.ts";
import { metricInterval, metricText, num } from "./format.ts";
import { thresholdName, thresholdVerdict } from "./protocol.ts";

/** A table as text cells. */
export interface TableData {
  /** Column titles. */
  header: string[];
  /** Cells, one array per row. */
  rows: string[][];
}

/** How many characters of a name (a lane, workflow, question, model) a terminal table shows. */
export const TERMINAL_NAME_WIDTH = 40;

/**
 * A name cut for a terminal table: at most `width` characters, the last one `…` when cut. Files
 * (report.md, report.html, run.json) keep the full name.
 *
 * @param name The name.
 * @param width The most characters shown.
 * @returns The name, or its first `width - 1` characters and `…`.
 * @example
 * ```ts
 * import { clipName } from "./tables.ts";
 * clipName("customer_service", 10); // "customer_…"
 * ```
 */
export function clipName(name: string, width: number = TERMINAL_NAME_WIDTH): string {
  return name.length > width ? `${name.slice(0, width - 1)}…` : name;
}

/**
 * Breakdown rows: group, n (decisions), labelled (those with gold: what the metrics are over; n/a
 * in a row recorded before it was counted), each column metric of the registry (those of
 * `BREAKDOWN_INTERVAL_METRICS` with their interval), errors.
 *
 * @param rows Breakdown rows.
 * @returns The table.
 */
export function breakdownData(rows: readonly BreakdownRow[]): TableData {
  const withInterval = (m: (typeof COLUMN_METRICS)[number]) =>
    BREAKDOWN_INTERVAL_METRICS.includes(m);
  return {
    header: [
      "group",
      "n",
      "labelled",
      ...COLUMN_METRICS.flatMap((m) => {
        const title = m.short ?? m.label;
        return withInterval(m) ? [title, "95% CI"] : [title];
      }),
      "errors",
    ],
    rows: rows.map((r) => [
      r.key,
      String(r.decisions),
      r.labelled === undefined ? "n/a" : String(r.labelled),
      ...COLUMN_METRICS.flatMap((m) => {
        const value = metricText(m, r.metrics[m.name]);
        return withInterval(m) ? [value, metricInterval(m, r.intervals[m.name])] : [value];
      }),
      String(r.errors),
    ]),
  };
}

/**
 * The headline table of a summary: every registered metric with its 95% interval, then the mean
 * confidence.
 *
 * @param summary The summary.
 * @returns The table.
 */
export function headlineData(summary: Summary): TableData {
  return {
    header: ["metric", "value", "95% CI (bootstrap over cases)"],
    rows: [
      ...METRIC_REGISTRY.map((m) => [
        m.label,
        metricText(m, summary.metrics[m.name]),
        metricInterval(m, summary.intervals[m.name]),
      ]),
      ["mean confidence", num(summary.meanConfidence), ""],
    ],
  };
}

/**
 * The reliability table of a summary.
 *
 * @param summary The summary.
 * @returns The table.
 */
export function reliabilityData(summary: Summary): TableData {
  return {
    header: ["confidence", "n", "mean conf", "accuracy", "gap"],
    rows: summary.reliability.map((r) => [
      `${r.lower.toFixed(1)}–${r.upper.toFixed(1)}`,
      String(r.n),
      num(r.meanConfidence),
      num(r.accuracy),
      (r.gap >= 0 ? "+" : "") + r.gap.toFixed(3),
    ]),
  };
}

/**
 * Threshold results.
 *
 * @param run The run record.
 * @returns The table (no rows when the workflow has no thresholds).
 */
export function thresholdData(run: RunJson): TableData {
  return {
    header: ["metric", "condition", "value", "result"],
    rows: run.thresholds.map((t) => [
      thresholdName(t),
      `${t.op} ${t.limit}`,
      t.pass === null ? "—" : (t.value === null ? "n/a" : num(t.value)) +
        (t.estimate !== undefined
          ? ` (estimate ${t.estimate === null ? "n/a" : num(t.estimate)})`
          : ""),
      thresholdVerdict(t),
    ]),
  };
}

/**
 * The most confident answered decisions that disagree with gold, most confident first.
 *
 * @param rows The run's most confident disagreements (a report model's `disagreements`).
 * @param limit How many to list.
 * @param questions The questions by name, when known (a user file's): a score question's answer
 *   and gold show the level's text.
 * @returns The table.
 */
export function disagreementData(
  rows: readonly DisagreementRow[],
  limit = 20,
  questions?: Readonly<Record<string, LevelsOf>>,
): TableData {
  return {
    header: ["case", "question", "predicted", "confidence", "gold", "gold p(pred)"],
    rows: rows.slice(0, limit).map((r) => [
      r.case,
      r.question,
      levelText(questions?.[r.question], r.answer) ?? r.answer,
      num(r.confidence),
      levelText(questions?.[r.question], r.gold) ?? r.gold,
      num(r.goldProbability),
    ]),
  };
}
