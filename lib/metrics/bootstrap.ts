/**
 * Seeded bootstrap intervals for the headline metrics, resampling cases.
 *
 * The five decisions of a case share one request and one state, so they are not independent:
 * the bootstrap draws whole cases with replacement and recomputes each metric over the drawn
 * cases' decisions. Every metric of the registry is bootstrapped at once. The additive metrics'
 * running totals are summed per case once, and each case's totals are added into every
 * resample's sums times the number of times the resample drew the case, cases in order
 * ({@linkcode BootstrapAccumulator}): the same sums whether the cases come all at once or one by
 * one while a run goes on. Sample metrics with a weighted form (`prepare`) are evaluated on each
 * resample's case counts, the others recomputed on each resample's decisions.
 *
 * @module
 */
import { groupBy } from "./_distribution.ts";
import { percentileInterval } from "./_quantile.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import {
  type AdditiveMetric,
  type ByMetric,
  coverageKey,
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
  /**
   * The additive metrics' sums, already fed these decisions case by case (a run's
   * {@linkcode BootstrapAccumulator}); used when they hold the same cases with the same options,
   * else the sums are computed here.
   */
  accumulated?: BootstrapAccumulator | undefined;
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
  if (decisions.length === 0 || resamples === 0 || metrics.length === 0) {
    return intervals as BootstrapIntervals;
  }

  // Each case's decisions, cases in order of first appearance.
  const perCase = [...groupBy(decisions, (d) => d.case).values()];
  const c = perCase.length;
  const additive = metrics.filter((m): m is AdditiveMetric => m.kind === "additive");
  const sample = metrics.filter((m): m is SampleMetric => m.kind === "sample");
  if (additive.length > 0) {
    let sums = options.accumulated;
    if (sums === undefined || !sums.holds(perCase, { resamples, seed, metrics: additive })) {
      sums = new BootstrapAccumulator(c, { resamples, seed, metrics: additive });
      for (const list of perCase) sums.add(list);
    }
    Object.assign(intervals, sums.intervals(level));
  }
  if (sample.length > 0) {
    sampleIntervals(intervals, perCase, sample, casesDrawn(seed, c, resamples), level);
  }
  return intervals as BootstrapIntervals;
}

/**
 * Whether `m` reads `owner`'s totals: it names it (`totalsOf`), and both have the same width and
 * cover the same decisions.
 */
function sharesTotals(m: AdditiveMetric, owner: AdditiveMetric): boolean {
  return m.totalsOf !== undefined && m.totalsOf === owner.name && owner.totalsOf === undefined &&
    m.width === owner.width && coverageKey(m) === coverageKey(owner);
}

/**
 * The bootstrap of the additive metrics fed one case at a time, so a run can sum its resamples
 * while its cases are answered and read the intervals at the end. The number of cases is known
 * before the first one is added: it fixes the seeded draws. Each case's totals are added into
 * every resample's sums weighted by how many times the resample drew the case, cases in order,
 * so the sums are the same whether they were fed during a run or all at once by
 * {@linkcode bootstrapIntervals}.
 *
 * @example
 * ```ts
 * import { BootstrapAccumulator, bootstrapIntervals } from "./bootstrap.ts";
 * import { COLUMN_METRICS } from "./registry.ts";
 * const decisions = ["a", "b", "c", "d"].map((id, i) => ({
 *   case: id,
 *   correct: i % 2 === 0,
 *   confidence: 0.6,
 *   kl: 0.1 * i,
 *   brier: 0.2,
 *   error: null,
 * }));
 * const options = { resamples: 200, seed: 1, metrics: COLUMN_METRICS };
 * const sums = new BootstrapAccumulator(4, options);
 * for (const d of decisions) sums.add([d]);
 * const fed = bootstrapIntervals(decisions, { ...options, accumulated: sums });
 * if (String(fed.kl) !== String(bootstrapIntervals(decisions, options).kl)) throw new Error("same");
 * ```
 */
export class BootstrapAccumulator {
  /** The number of cases the bootstrap resamples. */
  readonly cases: number;
  readonly #resamples: number;
  readonly #seed: number;
  readonly #metrics: readonly AdditiveMetric[];
  readonly #offsets: number[] = [];
  /** The metrics that add into the totals (not those reading another one's, `totalsOf`). */
  readonly #adders: number[] = [];
  readonly #width: number;
  /** Per case, per resample: how many times the resample drew the case (case-major). */
  #counts: Uint16Array | Int32Array | null = null;
  /** Per running total, per resample: the resample's sum (total-major). */
  readonly #sums: Float64Array;
  readonly #row: Float64Array;
  readonly #ids: string[] = [];
  readonly #sizes: number[] = [];

  /**
   * Makes an empty bootstrap of `cases` cases.
   *
   * @param cases The number of cases that will be added (at least 1).
   * @param options Resamples, seed and metrics (only the additive ones are summed).
   * @throws {RangeError} When `cases` is not a positive integer or the options are invalid.
   */
  constructor(cases: number, options: BootstrapOptions = {}) {
    if (!Number.isSafeInteger(cases) || cases < 1) {
      throw new RangeError(`Cannot bootstrap: case count "${cases}" is not a positive integer`);
    }
    const { resamples, seed } = resolveBootstrapOptions(options);
    this.cases = cases;
    this.#resamples = resamples;
    this.#seed = seed;
    this.#metrics = (options.metrics ?? METRIC_REGISTRY).filter((m): m is AdditiveMetric =>
      m.kind === "additive"
    );
    // A metric reading another's totals (`totalsOf`) gets that metric's offset and adds nothing.
    const owners = this.#metrics.map((m) => this.#metrics.findIndex((o) => sharesTotals(m, o)));
    let width = 0;
    this.#metrics.forEach((m, k) => {
      if ((owners[k] as number) >= 0) return;
      this.#offsets[k] = width;
      this.#adders.push(k);
      width += m.width;
    });
    owners.forEach((owner, k) => {
      if (owner >= 0) this.#offsets[k] = this.#offsets[owner] as number;
    });
    this.#width = width;
    this.#sums = new Float64Array(width * resamples);
    this.#row = new Float64Array(width);
  }

  /** The number of cases added so far. */
  get added(): number {
    return this.#ids.length;
  }

  /**
   * Adds the next case: its decisions (those no metric covers add nothing).
   *
   * @param decisions The case's decisions, in order; they share one `case` id.
   * @throws {RangeError} When every case has been added already.
   */
  add(decisions: readonly BootstrapInput[]): void {
    const i = this.#ids.length;
    if (i >= this.cases) {
      throw new RangeError(`Cannot bootstrap: all ${this.cases} cases were added already`);
    }
    this.#ids.push(decisions[0]?.case ?? "");
    this.#sizes.push(decisions.length);
    const row = this.#row;
    const metrics = this.#metrics;
    const adders = this.#adders;
    row.fill(0);
    for (const d of decisions) {
      for (let a = 0; a < adders.length; a++) {
        const k = adders[a] as number;
        const m = metrics[k] as AdditiveMetric;
        if (covers(m, d)) m.add(row, this.#offsets[k] as number, d);
      }
    }
    const resamples = this.#resamples;
    if (resamples === 0) return;
    this.#counts ??= drawCounts(this.#seed, this.cases, resamples);
    const counts = this.#counts;
    const sums = this.#sums;
    const from = i * resamples;
    for (let j = 0; j < this.#width; j++) {
      const v = row[j] as number;
      if (v === 0) continue;
      const base = j * resamples;
      for (let r = 0; r < resamples; r++) {
        sums[base + r] = (sums[base + r] as number) + (counts[from + r] as number) * v;
      }
    }
  }

  /**
   * Whether these are the cases added, all of them, with these options: its intervals are then
   * the ones {@linkcode bootstrapIntervals} would sum from the decisions.
   *
   * @param perCase Each case's decisions, cases in order.
   * @param options Resamples, seed and the additive metrics.
   * @returns True when the sums hold these cases.
   */
  holds(
    perCase: readonly (readonly BootstrapInput[])[],
    options: { resamples: number; seed: number; metrics: readonly AdditiveMetric[] },
  ): boolean {
    if (
      perCase.length !== this.cases || this.added !== this.cases ||
      options.resamples !== this.#resamples || options.seed !== this.#seed ||
      options.metrics.length !== this.#metrics.length ||
      options.metrics.some((m, k) => m !== this.#metrics[k])
    ) return false;
    return perCase.every((list, i) =>
      list.length === this.#sizes[i] && list[0]?.case === this.#ids[i]
    );
  }

  /**
   * The percentile intervals of the additive metrics.
   *
   * @param level Coverage of the interval.
   * @returns One interval per additive metric, null when it is n/a in every resample.
   * @throws {RangeError} When not every case has been added.
   */
  intervals(level = 0.95): Record<string, Interval | null> {
    if (this.added !== this.cases) {
      throw new RangeError(`Cannot bootstrap: ${this.added} of ${this.cases} cases were added`);
    }
    const resamples = this.#resamples;
    const metrics = this.#metrics;
    const stats = metrics.map(() => new Float64Array(resamples));
    const counts = new Int32Array(metrics.length);
    const row = this.#row;
    for (let r = 0; r < resamples; r++) {
      for (let j = 0; j < this.#width; j++) row[j] = this.#sums[j * resamples + r] as number;
      for (let k = 0; k < metrics.length; k++) {
        const v = (metrics[k] as AdditiveMetric).value(row, this.#offsets[k] as number);
        if (v !== null) record(stats, counts, k, v);
      }
    }
    const out: Record<string, Interval | null> = {};
    metrics.forEach((m, k) => {
      out[m.name] = percentileInterval(stats[k] as Float64Array, counts[k] as number, level);
    });
    return out;
  }
}

/**
 * The sample metrics' intervals: each resample weighs every decision by how many times its case
 * was drawn (metrics with a weighted form), or recomputes the metric on the drawn decisions.
 */
function sampleIntervals(
  intervals: Record<string, Interval | null>,
  perCase: readonly (readonly BootstrapInput[])[],
  sample: readonly SampleMetric[],
  draws: Int32Array,
  level: number,
): void {
  const c = perCase.length;
  const resamples = draws.length / c;
  const covered: MetricInput[][][] = sample.map((m) =>
    perCase.map((list) => list.filter((d) => covers(m, d)))
  );
  // Metrics covering the same decisions (same `over` and `types`) share one list and one weight
  // array, filled once per resample.
  const shared = new Map<string, { flat: MetricInput[]; caseOf: Int32Array; w: Float64Array }>();
  const weightsOf: (Float64Array | null)[] = [];
  const weighted = sample.map((m, k) => {
    if (!m.prepare) return null;
    const key = coverageKey(m);
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
  const stats = sample.map(() => new Float64Array(resamples));
  const counts = new Int32Array(sample.length);
  const drawCount = new Float64Array(c);
  const drawn = new Int32Array(c);
  for (let r = 0; r < resamples; r++) {
    const base = r * c;
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
        const v = fast(weightsOf[k] as Float64Array, r);
        if (v !== null) record(stats, counts, k, v);
        continue;
      }
      const perDrawn = covered[k] as MetricInput[][];
      const list: MetricInput[] = [];
      for (const i of drawn) for (const d of perDrawn[i] as MetricInput[]) list.push(d);
      const v = (sample[k] as SampleMetric).compute(list);
      if (v !== null) record(stats, counts, k, v);
    }
  }
  sample.forEach((m, k) => {
    intervals[m.name] = percentileInterval(stats[k] as Float64Array, counts[k] as number, level);
  });
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

/** How many times each resample draws each case, case-major (`counts[i * resamples + r]`). */
const countCache = new Map<string, Uint16Array | Int32Array>();

function drawCounts(seed: number, c: number, resamples: number): Uint16Array | Int32Array {
  const key = `${seed}:${c}:${resamples}`;
  let counts = countCache.get(key);
  if (counts === undefined) {
    const draws = casesDrawn(seed, c, resamples);
    // A resample draws a case at most c times: 16 bits hold that below 65,536 cases.
    counts = c < 65_536 ? new Uint16Array(c * resamples) : new Int32Array(c * resamples);
    for (let r = 0; r < resamples; r++) {
      const base = r * c;
      for (let k = 0; k < c; k++) {
        const at = (draws[base + k] as number) * resamples + r;
        counts[at] = (counts[at] as number) + 1;
      }
    }
    if (countCache.size >= 4) countCache.delete(countCache.keys().next().value as string);
    countCache.set(key, counts);
  }
  return counts;
}

function record(stats: Float64Array[], counts: Int32Array, k: number, value: number): void {
  const n = counts[k] as number;
  (stats[k] as Float64Array)[n] = value;
  counts[k] = n + 1;
}
