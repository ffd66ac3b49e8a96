/**
 * Aggregate metrics over scored decisions: the headline metrics as plain functions
 * (each computes its registry definition, see `registry.ts`), mean confidence, the reliability
 * table and percentiles.
 *
 * Every function takes plain arrays of records (any object with the fields it reads, such as a
 * `DecisionRecord`) and is guarded against empty input: a metric with nothing to average is
 * `null` ("n/a"), never 0. A decision is answered when its `error` is null; errors count as misses
 * for accuracy and are left out of KL, Brier, ECE and confidence.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import { addReliability, BIN_COUNT, reliabilityRows } from "./_bins.ts";
import { sortedPercentile } from "./_quantile.ts";
import { ACCURACY, BRIER, ECE, KL } from "./headline.ts";
import { computeMetric } from "./registry.ts";

/** The fields accuracy reads from a decision (a `DecisionRecord` has them all). */
export interface AccuracyInput {
  /** The predicted answer equals the gold label (null without gold: not counted). */
  correct: boolean | null;
  /** The failure, or null (or absent) when the decision was answered. */
  error?: unknown | undefined;
}

/** The fields mean KL reads from a decision. */
export interface KlInput {
  /** KL(gold ‖ predicted) in nats, null when not answered; absent without gold. */
  kl?: number | null | undefined;
  /** The failure, or null (or absent) when the decision was answered. */
  error?: unknown | undefined;
}

/** The fields mean Brier reads from a decision. */
export interface BrierInput {
  /** Brier score, null when not answered; absent without gold. */
  brier?: number | null | undefined;
  /** The failure, or null (or absent) when the decision was answered. */
  error?: unknown | undefined;
}

/** The fields ECE, the reliability table and mean confidence read from a decision. */
export interface CalibrationInput extends AccuracyInput {
  /** The predicted answer's probability, null when not answered. */
  confidence: number | null;
}

/** One row of the reliability table: a non-empty confidence bin. */
export interface ReliabilityRow {
  /** Bin index, 0–9. */
  bin: number;
  /** Lower edge of the bin (inclusive). */
  lower: number;
  /** Upper edge of the bin (exclusive, except bin 9 which holds 1.0). */
  upper: number;
  /** Answered decisions in the bin. */
  n: number;
  /** Mean top-label confidence in the bin. */
  meanConfidence: number;
  /** Share of the bin's decisions that are correct. */
  accuracy: number;
  /** `accuracy − meanConfidence`: positive when under-confident, negative when over-confident. */
  gap: number;
}

/**
 * Accuracy: correct decisions over all decisions, errors counting as misses.
 *
 * @param decisions Scored decisions.
 * @returns A fraction in [0, 1], or null when there are no decisions.
 * @example
 * ```ts
 * import { accuracy } from "./aggregate.ts";
 * const e = { kind: "timeout" as const, message: "Timed out" };
 * accuracy([
 *   { correct: true, error: null },
 *   { correct: false, error: null },
 *   { correct: false, error: e },
 * ]); // 1/3
 * ```
 */
export function accuracy(decisions: readonly AccuracyInput[]): number | null {
  return computeMetric(ACCURACY, decisions);
}

/**
 * Mean KL(gold ‖ predicted) over answered decisions.
 *
 * @param decisions Scored decisions; those with an error or a null `kl` are left out.
 * @returns The mean in nats, or null when nothing was answered.
 */
export function meanKl(decisions: readonly KlInput[]): number | null {
  return computeMetric(KL, decisions);
}

/**
 * Mean Brier score over answered decisions.
 *
 * @param decisions Scored decisions; those with an error or a null `brier` are left out.
 * @returns The mean, or null when nothing was answered.
 */
export function meanBrier(decisions: readonly BrierInput[]): number | null {
  return computeMetric(BRIER, decisions);
}

/**
 * Mean top-label confidence over answered decisions.
 *
 * @param decisions Scored decisions; those with an error or a null `confidence` are left out.
 * @returns The mean, or null when nothing was answered.
 */
export function meanConfidence(decisions: readonly CalibrationInput[]): number | null {
  return meanOf(decisions, (d) => (isAnswered(d) ? d.confidence : null));
}

/**
 * Top-label expected calibration error over answered decisions: 10 equal-width bins,
 * bin = min(trunc(conf·10), 9), empty bins skipped, Σ n_b·|acc_b − conf_b| / N.
 *
 * This is the standard 10-bin definition; the dataset card's ECE column used an unpublished one,
 * so the two are not comparable.
 *
 * @param decisions Scored decisions; those with an error or a null `confidence` are left out.
 * @returns A fraction in [0, 1], or null when nothing was answered.
 * @example
 * ```ts
 * import { ece } from "./aggregate.ts";
 * // one bin (0.8–0.9) with confidence 0.8 and accuracy 1/2 → |0.5 − 0.8| = 0.3
 * ece([
 *   { correct: true, confidence: 0.8, error: null },
 *   { correct: false, confidence: 0.8, error: null },
 * ]); // 0.3 (up to rounding)
 * ```
 */
export function ece(decisions: readonly CalibrationInput[]): number | null {
  return computeMetric(ECE, decisions);
}

/**
 * The reliability table: one row per non-empty confidence bin, in bin order.
 *
 * @param decisions Scored decisions; those with an error or a null `confidence` are left out.
 * @returns Rows for the bins that hold at least one answered decision (empty when none).
 */
export function reliabilityTable(decisions: readonly CalibrationInput[]): ReliabilityRow[] {
  const totals = new Float64Array(3 * BIN_COUNT);
  for (const d of decisions) addReliability(totals, d);
  return reliabilityRows(totals);
}

/**
 * A percentile by linear interpolation between closest ranks (Hyndman–Fan type 7, the default
 * of NumPy and R): sort ascending, h = (n − 1)·p/100, then x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
 * So p = 0 is the minimum, p = 100 the maximum and p = 50 the usual median.
 *
 * @param values The sample (not changed; NaN is rejected).
 * @param p The percentile, 0–100.
 * @returns The interpolated value, or null when `values` is empty.
 * @throws {RangeError} When `p` is outside [0, 100] or a value is NaN.
 * @example
 * ```ts
 * import { percentile } from "./aggregate.ts";
 * percentile([10, 20, 30, 40], 50); // 25
 * percentile([10, 20, 30, 40], 95); // 38.5
 * ```
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (!(p >= 0 && p <= 100)) {
    throw new RangeError(`Cannot compute a percentile: "${p}" is not in [0, 100]`);
  }
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values);
  if (sorted.some(Number.isNaN)) {
    throw new RangeError('Cannot compute a percentile: the values include "NaN"');
  }
  sorted.sort();
  return sortedPercentile(sorted, p);
}

function meanOf<T>(items: readonly T[], value: (item: T) => number | null): number | null {
  let n = 0;
  let sum = 0;
  for (const item of items) {
    const v = value(item);
    if (v === null) continue;
    n++;
    sum += v;
  }
  return n === 0 ? null : sum / n;
}
