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
  /** Columns (by index) aligned right. @default every column but the first */
  right?: readonly number[] | undefined;
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
  const right = new Set(options.right ?? header.map((_, i) => i).slice(1));
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
