/**
 * Seeded bootstrap intervals for every registered metric, by the Poisson bootstrap over cases
 * (Chamandy et al. 2012).
 *
 * The five decisions of a case share one request and one state, so they are not independent:
 * the bootstrap weighs whole cases. In replicate b, case c counts w times, w a Poisson(1) draw
 * made from a hash of (seed, case id, b) alone, so a case's weights never depend on the other
 * cases, their number or their order. Each metric keeps its running totals (additive metrics) or
 * its sketch (sample metrics) once per replicate, each case added times its weight: the replicates
 * are summed in one pass, in bounded memory, and the interval is the same whatever order the
 * cases come in, fed all at once ({@linkcode bootstrapIntervals}) or one at a time while a run
 * goes on ({@linkcode BootstrapAccumulator}). The interval is the percentile one over the B
 * replicates. A replicate's number of cases varies (Poisson), as the method intends.
 *
 * @module
 */
import { SKETCH_CELLS } from "./_cells.ts";
import { groupBy } from "./_distribution.ts";
import { MetricGroup } from "./_group.ts";
import { fmix32 } from "../hash32.ts";
import { caseKey, poissonWeights } from "./_poisson.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import {
  type ByMetric,
  METRIC_REGISTRY,
  type MetricDefinition,
  type MetricInput,
} from "./registry.ts";

/** A two-sided interval `[lower, upper]`. */
export type Interval = [number, number];

/** The fields the bootstrap reads from a decision (a `DecisionRecord` has them all). */
export interface BootstrapInput extends MetricInput {
  /** Case id: the unit the bootstrap weighs. */
  case: string;
  /**
   * The predicted answer equals the gold label (false on error); null for an unlabelled decision
   * (no gold), which no metric covers.
   */
  correct: boolean | null;
  /** The predicted answer's probability, null when not answered. */
  confidence: number | null;
  /** KL(gold ‖ predicted) in nats, null when not answered; absent without gold. */
  kl?: number | null | undefined;
  /** Brier score, null when not answered; absent without gold. */
  brier?: number | null | undefined;
}

/** Options of {@linkcode bootstrapIntervals}. */
export interface BootstrapOptions {
  /**
   * Number of replicates B; 0 skips the bootstrap (every interval is null).
   *
   * @default {1000}
   */
  resamples?: number | undefined;
  /**
   * Seed of the case weights' hash; the same seed and cases give the same intervals.
   *
   * @default {0}
   */
  seed?: number | undefined;
  /**
   * Coverage of the interval (percentile method: the (1 − level)/2 and (1 + level)/2 quantiles of
   * the replicated metric, linearly interpolated).
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
   * Replicates already fed these decisions case by case (a run's
   * {@linkcode BootstrapAccumulator}); used when they hold the same cases with the same seed and
   * replicates and bootstrap the metrics asked for, else the replicates are computed here.
   */
  accumulated?: BootstrapAccumulator | undefined;
}

/** Bootstrap intervals keyed by metric name; null where the metric is n/a. */
export type BootstrapIntervals = ByMetric<Interval | null>;

/**
 * Seeded percentile intervals for every registered metric (accuracy, mean KL, mean Brier, ECE,
 * nll, …) by the Poisson bootstrap over cases (decisions grouped by `case`).
 *
 * A replicate in which a metric is n/a (for example, no decision answered for KL) is left out of
 * that metric's interval. ECE is biased upwards under resampling, so its interval can sit above
 * the point estimate.
 *
 * @param decisions Scored decisions.
 * @param options Replicates, seed and coverage.
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
  const perCase = [...groupBy(decisions, (d) => d.case).values()];
  let sums = options.accumulated;
  if (sums === undefined || !sums.holds(perCase, { resamples, seed, metrics })) {
    sums = new BootstrapAccumulator(perCase.length, { resamples, seed, metrics });
    for (const list of perCase) sums.add(list);
  }
  const all = sums.intervals(level);
  for (const m of metrics) intervals[m.name] = all[m.name] ?? null;
  return intervals as BootstrapIntervals;
}

/** The options of a bootstrap, resolved. */
interface Resolved {
  resamples: number;
  seed: number;
  metrics: readonly MetricDefinition[];
  bootstrapped: readonly MetricDefinition[];
}

/** Options of {@linkcode BootstrapAccumulator}. */
export interface BootstrapAccumulatorOptions extends Omit<BootstrapOptions, "accumulated"> {
  /**
   * The metrics bootstrapped (of `metrics`); the others get point estimates only.
   *
   * @default {metrics}
   */
  intervalMetrics?: readonly MetricDefinition[] | undefined;
}

/**
 * The bootstrap of a group of decisions fed one case at a time, in any order, so a run can sum
 * its replicates while its cases are answered and read the intervals at the end. Its memory does
 * not depend on the number of cases: per additive total B sums, per sketch its bound (see
 * {@linkcode MetricsAccumulator} for the figures).
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
 * for (const d of decisions.toReversed()) sums.add([d]);
 * const fed = bootstrapIntervals(decisions, { ...options, accumulated: sums });
 * if (String(fed.kl) !== String(bootstrapIntervals(decisions, options).kl)) throw new Error("same");
 * ```
 */
export class BootstrapAccumulator {
  /** The number of cases planned (0: not known; nothing checks it). */
  readonly cases: number;
  readonly #options: Resolved;
  readonly #group: MetricGroup;
  readonly #weights: Uint8Array;
  #added = 0;
  /** An order-free fingerprint of the cases added (their ids and sizes). */
  #print = [0, 0];

  /**
   * Makes an empty bootstrap.
   *
   * @param cases The number of cases that will be added, when known (0 or more).
   * @param options Replicates, seed, the metrics and those bootstrapped.
   * @throws {RangeError} When `cases` is not a non-negative integer or the options are invalid.
   */
  constructor(cases: number, options: BootstrapAccumulatorOptions = {}) {
    if (!Number.isSafeInteger(cases) || cases < 0) {
      throw new RangeError(`Cannot bootstrap: case count "${cases}" is not a count`);
    }
    const { resamples, seed } = resolveBootstrapOptions(options);
    const metrics = options.metrics ?? METRIC_REGISTRY;
    const wanted = options.intervalMetrics ?? metrics;
    const bootstrapped = resamples > 0 ? metrics.filter((m) => wanted.includes(m)) : [];
    this.cases = cases;
    this.#options = { resamples, seed, metrics, bootstrapped };
    this.#group = new MetricGroup({
      metrics,
      intervalMetrics: bootstrapped,
      resamples: bootstrapped.length > 0 ? resamples : 0,
      cap: SKETCH_CELLS,
    });
    this.#weights = new Uint8Array(bootstrapped.length > 0 ? resamples : 0);
  }

  /** The seed of the case weights. */
  get seed(): number {
    return this.#options.seed;
  }

  /** The number of replicates. */
  get resamples(): number {
    return this.#options.resamples;
  }

  /** Whether any metric is bootstrapped (a case then needs its weights). */
  get replicated(): boolean {
    return this.#weights.length > 0;
  }

  /** The number of cases added so far. */
  get added(): number {
    return this.#added;
  }

  /** Bytes held by the replicates and sketches (independent of the number of cases). */
  get bytes(): number {
    return this.#group.bytes + this.#weights.byteLength;
  }

  /**
   * Adds a case: its decisions (those no metric covers add nothing). Cases may come in any order;
   * each must be added once.
   *
   * @param decisions The case's decisions; they share one `case` id.
   */
  add(decisions: readonly BootstrapInput[]): void {
    const id = decisions[0]?.case ?? "";
    const weights = this.#weights.length > 0
      ? poissonWeights(this.#options.seed, id, this.#weights)
      : null;
    this.addWeighted(id, decisions, weights);
  }

  /**
   * Adds a case whose Poisson weights the caller drew (with this bootstrap's seed), so that
   * groups sharing a case draw them once.
   *
   * @param id The case id.
   * @param decisions The case's decisions in this group.
   * @param weights The case's weight per replicate, or null when there are no replicates.
   */
  addWeighted(id: string, decisions: readonly MetricInput[], weights: Uint8Array | null): void {
    this.#group.addCase(decisions, weights);
    this.#print = addPrint(this.#print, id, decisions.length);
    this.#added++;
  }

  /**
   * Adds another bootstrap's cases (made with the same options): the result is the bootstrap of
   * both sets of cases.
   *
   * @param other The other bootstrap.
   */
  merge(other: BootstrapAccumulator): void {
    this.#group.merge(other.#group);
    this.#print = [
      (this.#print[0] as number) + (other.#print[0] as number) >>> 0,
      (this.#print[1] as number) + (other.#print[1] as number) >>> 0,
    ];
    this.#added += other.#added;
  }

  /**
   * Whether these are the cases added, all of them (in any order), with these options: its
   * intervals are then the ones {@linkcode bootstrapIntervals} would compute from the decisions.
   *
   * @param perCase Each case's decisions.
   * @param options Replicates, seed and the metrics wanted.
   * @returns True when the replicates hold these cases and bootstrap those metrics.
   */
  holds(
    perCase: readonly (readonly BootstrapInput[])[],
    options: { resamples: number; seed: number; metrics: readonly MetricDefinition[] },
  ): boolean {
    const mine = this.#options;
    if (
      perCase.length !== this.#added || options.resamples !== mine.resamples ||
      options.seed !== mine.seed ||
      options.metrics.some((m) => !mine.bootstrapped.includes(m))
    ) return false;
    let print = [0, 0];
    for (const list of perCase) print = addPrint(print, list[0]?.case ?? "", list.length);
    return print[0] === this.#print[0] && print[1] === this.#print[1];
  }

  /**
   * The point estimates of the metrics.
   *
   * @returns Each metric's value, null when n/a.
   */
  values(): Record<string, number | null> {
    return this.#group.values();
  }

  /**
   * A bootstrapped metric's value in each replicate (NaN where n/a), for paired comparisons.
   *
   * @param metric A bootstrapped metric.
   * @returns One value per replicate.
   * @throws {RangeError} When the metric is not bootstrapped.
   */
  replicates(metric: MetricDefinition): Float64Array {
    return this.#group.replicates(metric);
  }

  /**
   * The percentile intervals.
   *
   * @param level Coverage of the interval.
   * @returns One interval per metric, null when it is n/a in every replicate or not bootstrapped.
   */
  intervals(level = 0.95): Record<string, Interval | null> {
    const out: Record<string, Interval | null> = {};
    for (const m of this.#options.metrics) out[m.name] = null;
    return Object.assign(out, this.#group.intervals(level));
  }
}

/** The last case's key (a case's groups add it one after the other). */
let lastKey: { id: string; key: [number, number] } = { id: "", key: caseKey(0, "") };

/** The fingerprint with one more case: sums of hashes, so the order of cases does not count. */
function addPrint(print: number[], id: string, size: number): number[] {
  if (lastKey.id !== id) lastKey = { id, key: caseKey(0, id) };
  const [a, b] = lastKey.key;
  return [
    (print[0] as number) + fmix32((a ^ size) >>> 0) >>> 0,
    (print[1] as number) + fmix32((b + size) >>> 0) >>> 0,
  ];
}
