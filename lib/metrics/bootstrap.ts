/**
 * Seeded bootstrap intervals for the headline metrics, resampling cases.
 *
 * The five decisions of a case share one request and one state, so they are not independent:
 * the bootstrap draws whole cases with replacement and recomputes each metric over the drawn
 * cases' decisions. Every metric of the registry is bootstrapped at once: the running totals of
 * the additive metrics are summed per case once (sparse, in one typed array), so each resample
 * only adds up per-case totals (2,000 decisions × 1,000 resamples takes a few tens of
 * milliseconds); sample metrics with a weighted form (`prepare`) are evaluated on each resample's
 * case counts, the others recomputed on each resample's decisions.
 *
 * @module
 */
import { percentileInterval } from "./_quantile.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import {
  type AdditiveMetric,
  type ByMetric,
  covers,
  METRIC_REGISTRY,
  type MetricDefinition,
  type MetricInput,
  type SampleMetric,
} from "./registry.ts";
import { randomInts } from "./rng.ts";

/** A two-sided interval `[lower, upper]`. */
export type Interval = [number, number];

/** The fields the bootstrap reads from a decision (a `DecisionRecord` has them all). */
export interface BootstrapInput extends MetricInput {
  /** Case id: the unit the bootstrap resamples. */
  case: string;
  /** The predicted answer equals the gold label (false on error). */
  correct: boolean;
  /** The predicted answer's probability, null when not answered. */
  confidence: number | null;
  /** KL(gold ‖ predicted) in nats, null when not answered. */
  kl: number | null;
  /** Brier score, null when not answered. */
  brier: number | null;
}

/** Options of {@linkcode bootstrapIntervals}. */
export interface BootstrapOptions {
  /**
   * Number of resamples; 0 skips the bootstrap (every interval is null).
   *
   * @default {1000}
   */
  resamples?: number | undefined;
  /**
   * Seed of the generator that draws the cases; the same seed and input give the same intervals.
   *
   * @default {0}
   */
  seed?: number | undefined;
  /**
   * Coverage of the interval (percentile method: the (1 − level)/2 and (1 + level)/2 quantiles of
   * the resampled metric, linearly interpolated).
   *
   * @default {0.95}
   */
  level?: number | undefined;
  /**
   * The metrics to bootstrap.
   *
   * @default {METRIC_REGISTRY}
   */
  metrics?: readonly MetricDefinition[] | undefined;
}

/** Bootstrap intervals keyed by metric name; null where the metric is n/a. */
export type BootstrapIntervals = ByMetric<Interval | null>;

/**
 * Seeded percentile bootstrap intervals for every registered metric (accuracy, mean KL, mean
 * Brier, ECE, nll, …), resampling cases (decisions grouped by `case`) with replacement.
 *
 * A resample in which a metric is n/a (for example, no decision answered for KL) is left out of
 * that metric's interval. ECE is biased upwards under resampling, so its interval can sit above the point
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
  const metrics = options.metrics ?? METRIC_REGISTRY;
  const intervals: Record<string, Interval | null> = {};
  for (const m of metrics) intervals[m.name] = null;
  if (decisions.length === 0 || resamples === 0) return intervals as BootstrapIntervals;

  const cases = new Map<string, number>();
  for (const d of decisions) if (!cases.has(d.case)) cases.set(d.case, cases.size);
  const c = cases.size;
  const additive = metrics.filter((m): m is AdditiveMetric => m.kind === "additive");
  const sample = metrics.filter((m): m is SampleMetric => m.kind === "sample");
  const offsets: number[] = [];
  let width = 0;
  for (const m of additive) {
    offsets.push(width);
    width += m.width;
  }
  // Per-case running totals of every additive metric, then kept sparse (a case's five
  // decisions fill few of the ECE bins): each resample adds only the non-zero entries.
  const totals = new Float64Array(c * width);
  const covered: MetricInput[][][] = sample.map(() => Array.from({ length: c }, () => []));
  // Sample metrics with a weighted form read their decisions once; each resample then passes
  // every decision's weight (how many times its case was drawn).
  for (const d of decisions) {
    const i = cases.get(d.case) as number;
    for (let k = 0; k < additive.length; k++) {
      const m = additive[k] as AdditiveMetric;
      if (covers(m, d)) m.add(totals, i * width + (offsets[k] as number), d);
    }
    for (let k = 0; k < sample.length; k++) {
      if (covers(sample[k] as SampleMetric, d)) covered[k]?.[i]?.push(d);
    }
  }
  // Metrics covering the same decisions (same `over` and `types`) share one list and one weight
  // array, filled once per resample.
  const shared = new Map<string, { flat: MetricInput[]; caseOf: Int32Array; w: Float64Array }>();
  const weightsOf: (Float64Array | null)[] = [];
  const weighted = sample.map((m, k) => {
    if (!m.prepare) return null;
    const key = `${m.over}|${m.types?.join(",") ?? "*"}`;
    let group = shared.get(key);
    if (!group) {
      const flat: MetricInput[] = [];
      const caseOf: number[] = [];
      (covered[k] as MetricInput[][]).forEach((list, i) => {
        for (const d of list) {
          flat.push(d);
          caseOf.push(i);
        }
      });
      group = { flat, caseOf: Int32Array.from(caseOf), w: new Float64Array(flat.length) };
      shared.set(key, group);
    }
    weightsOf[k] = group.w;
    return m.prepare(group.flat);
  });
  const drawCount = new Float64Array(c);
  // Columns equal case by case (the answered count of kl, brier and nll; the 10-bin totals of
  // ece and mce) are summed once and copied: the same additions in the same order.
  const sameAs = sameColumns(totals, c, width);
  const copies: number[] = [];
  sameAs.forEach((from, j) => {
    if (from !== j) copies.push(j, from);
  });
  const start = new Int32Array(c + 1);
  let entries = 0;
  for (let x = 0; x < totals.length; x++) {
    if (totals[x] !== 0 && sameAs[x % width] === x % width) entries++;
  }
  const entryAt = new Int32Array(entries);
  const entryValue = new Float64Array(entries);
  for (let i = 0, e = 0; i < c; i++) {
    for (let j = 0; j < width; j++) {
      const v = totals[i * width + j] as number;
      if (v === 0 || sameAs[j] !== j) continue;
      entryAt[e] = j;
      entryValue[e++] = v;
    }
    start[i + 1] = e;
  }
  const needCounts = sample.length > 0;

  const draws = casesDrawn(seed, c, resamples);
  const stats = metrics.map(() => new Float64Array(resamples));
  const counts = new Int32Array(metrics.length);
  const sum = new Float64Array(width);
  const drawn = new Int32Array(c);
  const additiveIndex = additive.map((m) => metrics.indexOf(m));
  const sampleIndex = sample.map((m) => metrics.indexOf(m));
  for (let r = 0; r < resamples; r++) {
    sum.fill(0);
    const base = r * c;
    for (let k = 0; k < c; k++) {
      const i = draws[base + k] as number;
      const end = start[i + 1] as number;
      for (let e = start[i] as number; e < end; e++) {
        const j = entryAt[e] as number;
        sum[j] = (sum[j] as number) + (entryValue[e] as number);
      }
    }
    for (let x = 0; x < copies.length; x += 2) {
      sum[copies[x] as number] = sum[copies[x + 1] as number] as number;
    }
    for (let k = 0; k < additive.length; k++) {
      const v = (additive[k] as AdditiveMetric).value(sum, offsets[k] as number);
      if (v !== null) record(stats, counts, additiveIndex[k] as number, v);
    }
    if (!needCounts) continue;
    drawCount.fill(0);
    for (let k = 0; k < c; k++) {
      const i = draws[base + k] as number;
      drawn[k] = i;
      drawCount[i] = (drawCount[i] as number) + 1;
    }
    for (const group of shared.values()) {
      const { w, caseOf } = group;
      for (let j = 0; j < w.length; j++) w[j] = drawCount[caseOf[j] as number] as number;
    }
    for (let k = 0; k < sample.length; k++) {
      const fast = weighted[k];
      if (fast) {
        const v = fast(weightsOf[k] as Float64Array);
        if (v !== null) record(stats, counts, sampleIndex[k] as number, v);
        continue;
      }
      const perCase = covered[k] as MetricInput[][];
      const list: MetricInput[] = [];
      for (const i of drawn) for (const d of perCase[i] as MetricInput[]) list.push(d);
      const v = (sample[k] as SampleMetric).compute(list);
      if (v !== null) record(stats, counts, sampleIndex[k] as number, v);
    }
  }
  metrics.forEach((m, k) => {
    intervals[m.name] = percentileInterval(stats[k] as Float64Array, counts[k] as number, level);
  });
  return intervals as BootstrapIntervals;
}

/**
 * For each column of per-case totals (`c` rows of `width`), the first column equal to it in every
 * row (itself when none is).
 */
function sameColumns(totals: Float64Array, c: number, width: number): Int32Array {
  const sameAs = new Int32Array(width);
  const byHash = new Map<number, number[]>();
  for (let j = 0; j < width; j++) {
    sameAs[j] = j;
    let hash = 0;
    let zero = true;
    for (let i = 0; i < c; i++) {
      const v = totals[i * width + j] as number;
      if (v !== 0) zero = false;
      hash = (hash * 31 + v * 1e6) % 1e15;
    }
    if (zero) continue; // no entries, sums stay 0
    const candidates = byHash.get(hash);
    if (candidates === undefined) {
      byHash.set(hash, [j]);
      continue;
    }
    const match = candidates.find((q) => {
      for (let i = 0; i < c; i++) {
        if (totals[i * width + j] !== totals[i * width + q]) return false;
      }
      return true;
    });
    if (match === undefined) candidates.push(j);
    else sameAs[j] = match;
  }
  return sameAs;
}

/**
 * The case indices every resample draws: `resamples` × `c` draws of one seeded sequence, the
 * same as drawing them one by one. Breakdown groups of the same size (the 20 questions of 100
 * cases, the workflows, the summary and its types of 400) draw the same indices, so the last few
 * sequences are kept.
 */
const drawCache = new Map<string, Int32Array>();

function casesDrawn(seed: number, c: number, resamples: number): Int32Array {
  const key = `${seed}:${c}:${resamples}`;
  let draws = drawCache.get(key);
  if (draws === undefined) {
    draws = randomInts(seed, c, c * resamples);
    if (drawCache.size >= 4) drawCache.delete(drawCache.keys().next().value as string);
    drawCache.set(key, draws);
  }
  return draws;
}

function record(stats: Float64Array[], counts: Int32Array, k: number, value: number): void {
  const n = counts[k] as number;
  (stats[k] as Float64Array)[n] = value;
  counts[k] = n + 1;
}
