/**
 * Trend lines: a series drawn as one row of block characters.
 *
 * @module
 */

const BLOCKS = "▁▂▃▄▅▆▇█";

/** Options of {@linkcode sparkline}. */
export interface SparklineOptions {
  /**
   * The value drawn as the lowest block.
   *
   * @default {0}
   */
  min?: number | undefined;
  /**
   * The value drawn as the highest block; values above it are drawn as the highest block.
   *
   * @default {1}
   */
  max?: number | undefined;
}

/**
 * Draws the last `width` values of a series as block characters, one cell per value, oldest
 * first; a missing value (`null`) is a space. The scale is fixed by `min` and `max` so two
 * moments of a session compare at a glance.
 *
 * @param values The series, oldest first.
 * @param width The most cells to draw.
 * @param options The scale.
 * @returns The trend line, at most `width` cells (shorter while the series is short).
 * @example
 * ```ts
 * import { sparkline } from "./_sparkline.ts";
 * sparkline([0, 0.5, 1], 10); // "▁▅█"
 * ```
 */
export function sparkline(
  values: readonly (number | null)[],
  width: number,
  options: SparklineOptions = {},
): string {
  const { min = 0, max = 1 } = options;
  if (width <= 0) return "";
  const span = max - min;
  let out = "";
  for (const value of values.slice(-width)) {
    if (value === null || !Number.isFinite(value)) {
      out += " ";
      continue;
    }
    const share = span > 0 ? (value - min) / span : 0;
    const index = Math.round(Math.min(Math.max(share, 0), 1) * (BLOCKS.length - 1));
    out += BLOCKS[index];
  }
  return out;
}
