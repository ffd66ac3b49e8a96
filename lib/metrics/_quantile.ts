/**
 * Private quantile helper shared by `percentile` and the bootstraps.
 *
 * @module
 */

/**
 * Type-7 percentile (linear interpolation between closest ranks) of an already sorted,
 * non-empty sample; `p` is 0–100.
 */
export function sortedPercentile(sorted: ArrayLike<number>, p: number): number {
  const h = (sorted.length - 1) * (p / 100);
  const lo = Math.floor(h);
  const a = sorted[lo] as number;
  if (lo + 1 >= sorted.length) return a;
  const b = sorted[lo + 1] as number;
  return a + (h - lo) * (b - a);
}

/**
 * The central `level` interval of a sample of bootstrap statistics (the first `n` entries of
 * `stats`, sorted in place), or null when `n` is 0.
 */
export function percentileInterval(
  stats: Float64Array,
  n: number,
  level: number,
): [number, number] | null {
  if (n === 0) return null;
  const sample = stats.subarray(0, n).sort();
  const tail = ((1 - level) / 2) * 100;
  return [sortedPercentile(sample, tail), sortedPercentile(sample, 100 - tail)];
}
