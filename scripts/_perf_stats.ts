/**
 * Figures for `deno task perf`: the median of alternated rounds with their range, and how a goal
 * reads beside it.
 *
 * @module
 */

/**
 * The median of some values (the mean of the middle two for an even count).
 *
 * @param values The values (at least one).
 * @returns The median.
 * @throws {RangeError} When there are no values.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("Cannot take a median: no values");
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] as number : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Options of {@linkcode figure}. */
export interface FigureOptions {
  /**
   * Decimals shown.
   *
   * @default {0}
   */
  decimals?: number;
  /**
   * Unit written after the numbers (e.g. ` ms`).
   *
   * @default {""}
   */
  unit?: string;
}

/**
 * A median with its range, `142 ms [131–160]`; a single value alone, `142 ms`.
 *
 * @param values The rounds' values.
 * @param options Decimals and unit.
 * @returns The text.
 * @throws {RangeError} When there are no values.
 */
export function figure(values: readonly number[], options: FigureOptions = {}): string {
  const decimals = options.decimals ?? 0;
  const unit = options.unit ?? "";
  const fmt = (n: number): string =>
    n.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  const range = values.length > 1
    ? ` [${fmt(Math.min(...values))}–${fmt(Math.max(...values))}]`
    : "";
  return `${fmt(median(values))}${unit}${range}`;
}

/**
 * Whether a median meets a goal, as text: `goal ≥ 0.75: met`.
 *
 * @param values The rounds' values.
 * @param op The goal's comparison.
 * @param limit The goal's limit.
 * @param shown How the limit reads (`0.75`, `150 ms`).
 * @returns The text.
 */
export function goal(
  values: readonly number[],
  op: ">=" | "<=" | "<",
  limit: number,
  shown: string,
): string {
  const m = median(values);
  const met = op === ">=" ? m >= limit : op === "<=" ? m <= limit : m < limit;
  const sign = op === ">=" ? "≥" : op === "<=" ? "≤" : "<";
  return `goal ${sign} ${shown}: ${met ? "met" : "NOT met"}`;
}

/**
 * Lines of a table: each column padded to its widest cell, two spaces between columns, the
 * lines indented by two spaces and their trailing spaces dropped.
 *
 * @param rows The cells, row by row (the first row is the header).
 * @returns The lines.
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => widths[i] = Math.max(widths[i] ?? 0, cell.length));
  }
  return rows.map((row) =>
    `  ${row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ")}`.trimEnd()
  );
}
