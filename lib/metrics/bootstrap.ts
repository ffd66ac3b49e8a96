/**
 * Seeded bootstrap intervals for the headline metrics, resampling cases.
 *
 * The five decisions of a case share one request and one state, so they are not independent:
 * the bootstrap draws whole cases with replacement and recomputes each metric over the drawn
 * cases' decisions. Per-case sums are computed once, so each resample only adds up per-case
 * aggregates (2,000 decisions × 1,000 resamples takes a few tens of milliseconds).
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import type { BrierInput, CalibrationInput, KlInput } from "./aggregate.ts";
import { addAt, BIN_COUNT, binOf, eceFromBins } from "./_bins.ts";
import { percentileInterval } from "./_quantile.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import { randomInt, seededRandom } from "./rng.ts";

/** A two-sided interval `[lower, upper]`. */
export type Interval = [number, number];

/** The fields the bootstrap reads from a decision (a `DecisionRecord` has them all). */
export interface BootstrapInput extends CalibrationInput, KlInput, BrierInput {
  /** Case id: the unit the bootstrap resamples. */
  case: string;
}

/** Options of {@linkcode bootstrapIntervals}. */
export interface BootstrapOptions {
  /**
   * Number of resamples; 0 skips the bootstrap (every interval is null).
   *
   * @default {1000}
   */
  resamples?: number;
  /**
   * Seed of the generator that draws the cases; the same seed and input give the same intervals.
   *
   * @default {0}
   */
  seed?: number;
  /**
   * Coverage of the interval (percentile method: the (1 − level)/2 and (1 + level)/2 quantiles of
   * the resampled metric, linearly interpolated).
   *
   * @default {0.95}
   */
  level?: number;
}

/** Bootstrap intervals of the headline metrics; null where the metric is n/a. */
export interface BootstrapIntervals {
  /** Accuracy interval (errors count as misses). */
  accuracy: Interval | null;
  /** Mean KL interval (answered decisions). */
  kl: Interval | null;
  /** Mean Brier interval (answered decisions). */
  brier: Interval | null;
  /** ECE interval (answered decisions). */
  ece: Interval | null;
}

/**
 * Seeded percentile bootstrap intervals for accuracy, mean KL, mean Brier and ECE, resampling
 * cases (decisions grouped by `case`) with replacement.
 *
 * A resample in which no decision was answered has no KL, Brier or ECE and is left out of those
 * intervals. ECE is biased upwards under resampling, so its interval can sit above the point
 * estimate.
 *
 * @param decisions Scored decisions.
 * @param options Resamples, seed and coverage.
 * @returns One interval per metric, null when the metric is n/a (no decisions, nothing answered)
 *   or the bootstrap was skipped.
 * @throws {RangeError} When `resamples` is not a non-negative integer, `level` is not in (0, 1)
 *   or `seed` is not a safe integer.
 * @example
 * ```ts
 * import { bootstrapIntervals } from "./bootstrap.ts";
 * const decisions = ["a", "b", "c", "d"].map((id, i) => ({
 *   case: id,
 *   correct: i % 2 === 0,
 *   confidence: 0.6,
 *   kl: 0.1 * i,
 *   brier: 0.2,
 *   error: null,
 * }));
 * const { accuracy } = bootstrapIntervals(decisions, { resamples: 200, seed: 1 });
 * if (accuracy === null || accuracy[0] > 0.5 || accuracy[1] < 0.5) throw new Error("0.5 inside");
 * ```
 */
export function bootstrapIntervals(
  decisions: readonly BootstrapInput[],
  options: BootstrapOptions = {},
): BootstrapIntervals {
  const { resamples, seed, level } = resolveBootstrapOptions(options);
  const none: BootstrapIntervals = { accuracy: null, kl: null, brier: null, ece: null };
  if (decisions.length === 0 || resamples === 0) return none;

  const cases = new Map<string, number>();
  for (const d of decisions) if (!cases.has(d.case)) cases.set(d.case, cases.size);
  const c = cases.size;
  const n = new Float64Array(c);
  const correct = new Float64Array(c);
  const klN = new Float64Array(c);
  const klSum = new Float64Array(c);
  const brierN = new Float64Array(c);
  const brierSum = new Float64Array(c);
  const binN = new Float64Array(c * BIN_COUNT);
  const binCorrect = new Float64Array(c * BIN_COUNT);
  const binConf = new Float64Array(c * BIN_COUNT);
  for (const d of decisions) {
    const i = cases.get(d.case) as number;
    addAt(n, i, 1);
    if (!isAnswered(d)) continue;
    if (d.correct) addAt(correct, i, 1);
    if (d.kl !== null) {
      addAt(klN, i, 1);
      addAt(klSum, i, d.kl);
    }
    if (d.brier !== null) {
      addAt(brierN, i, 1);
      addAt(brierSum, i, d.brier);
    }
    if (d.confidence !== null) {
      const j = i * BIN_COUNT + binOf(d.confidence);
      addAt(binN, j, 1);
      if (d.correct) addAt(binCorrect, j, 1);
      addAt(binConf, j, d.confidence);
    }
  }
  // Sparse per-case bins: a case's decisions fill at most 5 of the 10 bins.
  const start = new Int32Array(c + 1);
  const entryBin: number[] = [];
  const entryN: number[] = [];
  const entryCorrect: number[] = [];
  const entryConf: number[] = [];
  for (let i = 0; i < c; i++) {
    for (let b = 0; b < BIN_COUNT; b++) {
      const j = i * BIN_COUNT + b;
      if (binN[j] === 0) continue;
      entryBin.push(b);
      entryN.push(binN[j] as number);
      entryCorrect.push(binCorrect[j] as number);
      entryConf.push(binConf[j] as number);
    }
    start[i + 1] = entryBin.length;
  }

  const random = seededRandom(seed);
  const accStats = new Float64Array(resamples);
  const klStats = new Float64Array(resamples);
  const brierStats = new Float64Array(resamples);
  const eceStats = new Float64Array(resamples);
  let klCount = 0;
  let brierCount = 0;
  let eceCount = 0;
  const sumBinN = new Float64Array(BIN_COUNT);
  const sumBinCorrect = new Float64Array(BIN_COUNT);
  const sumBinConf = new Float64Array(BIN_COUNT);
  for (let r = 0; r < resamples; r++) {
    let sn = 0, sc = 0, skN = 0, sk = 0, sbN = 0, sb = 0;
    sumBinN.fill(0);
    sumBinCorrect.fill(0);
    sumBinConf.fill(0);
    for (let k = 0; k < c; k++) {
      const i = randomInt(random, c);
      sn += n[i] as number;
      sc += correct[i] as number;
      skN += klN[i] as number;
      sk += klSum[i] as number;
      sbN += brierN[i] as number;
      sb += brierSum[i] as number;
      for (let e = start[i] as number, end = start[i + 1] as number; e < end; e++) {
        const b = entryBin[e] as number;
        addAt(sumBinN, b, entryN[e] as number);
        addAt(sumBinCorrect, b, entryCorrect[e] as number);
        addAt(sumBinConf, b, entryConf[e] as number);
      }
    }
    accStats[r] = sc / sn;
    if (skN > 0) klStats[klCount++] = sk / skN;
    if (sbN > 0) brierStats[brierCount++] = sb / sbN;
    const e = eceFromBins(sumBinN, sumBinCorrect, sumBinConf);
    if (e !== null) eceStats[eceCount++] = e;
  }
  return {
    accuracy: percentileInterval(accStats, resamples, level),
    kl: percentileInterval(klStats, klCount, level),
    brier: percentileInterval(brierStats, brierCount, level),
    ece: percentileInterval(eceStats, eceCount, level),
  };
}
