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

/** One row of the reliability table (see `ReliabilityRow` in `aggregate.ts`). */
export interface BinRow {
  bin: number;
  lower: number;
  upper: number;
  n: number;
  meanConfidence: number;
  accuracy: number;
  gap: number;
}

/**
 * Adds an answered, labelled decision with a confidence into reliability totals (`3·BIN_COUNT`:
 * counts, correct counts, confidence sums); other decisions (an unlabelled one: gold or correct
 * null) add nothing.
 */
export function addReliability(
  totals: Float64Array,
  d: {
    confidence?: number | null | undefined;
    correct?: boolean | null | undefined;
    gold?: unknown;
    error?: unknown;
  },
): void {
  if (d.error !== null && d.error !== undefined) return;
  if (d.gold === null || d.correct === null) return;
  if (d.confidence === null || d.confidence === undefined) return;
  const b = binOf(d.confidence);
  addAt(totals, b, 1);
  if (d.correct) addAt(totals, b + BIN_COUNT, 1);
  addAt(totals, b + 2 * BIN_COUNT, d.confidence);
}

/** The reliability table's rows from its totals: one per non-empty bin, in bin order. */
export function reliabilityRows(totals: Float64Array): BinRow[] {
  const rows: BinRow[] = [];
  for (let bin = 0; bin < BIN_COUNT; bin++) {
    const n = totals[bin] as number;
    if (n === 0) continue;
    const meanConf = (totals[bin + 2 * BIN_COUNT] as number) / n;
    const acc = (totals[bin + BIN_COUNT] as number) / n;
    rows.push({
      bin,
      lower: bin / BIN_COUNT,
      upper: (bin + 1) / BIN_COUNT,
      n,
      meanConfidence: meanConf,
      accuracy: acc,
      gap: acc - meanConf,
    });
  }
  return rows;
}
