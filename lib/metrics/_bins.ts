/**
 * Private helpers shared by ECE, the reliability table and the bootstrap: confidence bins and
 * ECE from per-bin sums.
 *
 * @module
 */

/** Number of equal-width confidence bins. */
export const BIN_COUNT = 10;

/**
 * The confidence bin of a top-label confidence: min(trunc(conf·10), 9), so 1.0 falls in bin 9
 * (values below 0 fall in bin 0).
 */
export function binOf(confidence: number): number {
  return Math.max(0, Math.min(Math.trunc(confidence * BIN_COUNT), BIN_COUNT - 1));
}

/**
 * ECE from per-bin sums held at `totals[offset…]` (counts, then correct counts, then confidence
 * sums, `BIN_COUNT` each): Σ n_b·|acc_b − conf_b| / N = Σ |correct_b − confSum_b| / N, empty
 * bins contributing nothing. Null when N is 0.
 */
export function eceFromBins(totals: Float64Array, offset: number): number | null {
  let total = 0;
  let sum = 0;
  for (let b = offset; b < offset + BIN_COUNT; b++) {
    const n = totals[b] as number;
    if (n === 0) continue;
    total += n;
    sum += Math.abs((totals[b + BIN_COUNT] as number) - (totals[b + 2 * BIN_COUNT] as number));
  }
  return total === 0 ? null : sum / total;
}

/** Adds `value` to `array[index]` (a typed-array `+=` that satisfies noUncheckedIndexedAccess). */
export function addAt(array: Float64Array, index: number, value: number): void {
  array[index] = (array[index] as number) + value;
}
