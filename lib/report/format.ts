/**
 * Number and table formatting shared by the terminal and Markdown reports.
 *
 * @module
 */
import type { Interval, MetricBase } from "../metrics/mod.ts";

/**
 * A fraction as a percentage with one decimal, or "n/a".
 *
 * @param value Fraction in [0, 1], or null.
 * @returns e.g. "71.3%".
 */
export function pct(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

/**
 * A number with fixed decimals, or "n/a".
 *
 * @param value The number, or null.
 * @param digits Decimals.
 * @returns The text.
 */
export function num(value: number | null, digits = 3): string {
  if (value === null) return "n/a";
  const text = value.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
}

/**
 * An interval as "[lo, hi]", percent or plain.
 *
 * @param interval The interval, or null.
 * @param asPercent Format as percentages.
 * @returns The text, or "" when null.
 */
export function interval(interval: Interval | null, asPercent = false): string {
  if (!interval) return "";
  const f = asPercent ? (v: number) => num(v * 100, 1) : (v: number) => num(v);
  return `[${f(interval[0])}, ${f(interval[1])}]`;
}

/**
 * A metric's value as its definition formats it (a percentage or a number), or "n/a".
 *
 * @param metric The metric.
 * @param value Its value; null or undefined is n/a.
 * @returns e.g. "74.8%" or "0.121".
 */
export function metricText(metric: MetricBase, value: number | null | undefined): string {
  const v = value ?? null;
  return metric.format === "percent" ? pct(v) : num(v);
}

/**
 * A metric's interval as its definition formats it, or "" when there is none.
 *
 * @param metric The metric.
 * @param value The interval; null or undefined is none.
 * @returns e.g. "[72.6, 76.8]".
 */
export function metricInterval(metric: MetricBase, value: Interval | null | undefined): string {
  return interval(value ?? null, metric.format === "percent");
}

/** Options for `table`. */
export interface TableOptions {
  /** Render as a Markdown table instead of aligned text. @default false */
  markdown?: boolean | undefined;
  /** Columns (by index) aligned right. @default the numeric columns (see `numericColumns`) */
  right?: readonly number[] | undefined;
}

const NUMERIC_CELL = /^(?:[-+]?\d[\d,]*(?:\.\d+)?%?|n\/a|—|\[[-\d., ]*\])$/;

/**
 * The columns whose cells are all numbers (counts, fractions, percentages, `[lo, hi]` intervals,
 * `n/a`, ignoring empty cells): they align right, text columns align left.
 *
 * @param rows Cells.
 * @returns Column indexes.
 * @example
 * ```ts
 * import { numericColumns } from "./format.ts";
 * numericColumns([["c1", "q1", "0.950", "[1.0, 2.0]"], ["c2", "q2", "n/a", ""]]); // [2, 3]
 * ```
 */
export function numericColumns(rows: readonly (readonly string[])[]): number[] {
  const width = Math.max(0, ...rows.map((r) => r.length));
  const out: number[] = [];
  for (let i = 0; i < width; i++) {
    const cells = rows.map((r) => r[i] ?? "").filter((c) => c !== "");
    if (cells.length && cells.every((c) => NUMERIC_CELL.test(c))) out.push(i);
  }
  return out;
}

/**
 * Renders rows as an aligned text table or a Markdown table.
 *
 * @param header Column titles.
 * @param rows Cells.
 * @param options Markdown or text, alignment.
 * @returns The table, lines joined with "\n".
 */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const right = new Set(options.right ?? numericColumns(rows));
  if (options.markdown) {
    const esc = (s: string) => s.replace(/\|/g, "\\|");
    const lines = [
      `| ${header.map(esc).join(" | ")} |`,
      `|${header.map((_, i) => (right.has(i) ? "---:" : "---")).join("|")}|`,
      ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
    ];
    return lines.join("\n");
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => right.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)).join(
      "  ",
    ).trimEnd();
  return [line(header), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The decision counts of a run as a sentence: "2000 decisions, 1990 answered, 10 errors
 * (400 cases)", or with the cases never asked: "25 decisions, 0 answered, 25 errors; 3 of 8
 * cases not asked". When some decisions have no gold the labelled ones (what every metric is over)
 * are named: "9000 decisions, 8370 labelled (630 unlabelled), 9000 answered, 0 errors (3000 cases)".
 *
 * @param counts Decisions recorded, labelled (absent: all), answered and errored.
 * @param cases Cases selected and cases with a recorded decision.
 * @returns The text.
 */
export function decisionCounts(
  counts: { decisions: number; labelled?: number | undefined; answered: number; errors: number },
  cases: { selected: number; asked: number },
): string {
  const labelled = counts.labelled ?? counts.decisions;
  const head = `${plural(counts.decisions, "decision")}, ${
    labelled < counts.decisions
      ? `${labelled} labelled (${counts.decisions - labelled} unlabelled), `
      : ""
  }${counts.answered} answered, ${plural(counts.errors, "error")}`;
  const unasked = cases.selected - cases.asked;
  return unasked > 0
    ? `${head}; ${unasked} of ${plural(cases.selected, "case")} not asked`
    : `${head} (${plural(cases.selected, "case")})`;
}
