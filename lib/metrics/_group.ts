/**
 * Private: the metrics of one group of decisions (a run, a question type, a lane, a question),
 * accumulated one case at a time in bounded memory, with the Poisson bootstrap's replicates of the
 * metrics whose intervals are wanted.
 *
 * Additive metrics keep their running totals (the point estimate, summed in arrival order) and,
 * when bootstrapped, the same totals per replicate: a case's totals, each decision's contribution
 * rounded to a multiple of 2^-24, are added times the case's Poisson weight into every
 * replicate's sums, so the replicate sums are exact and the same in any order. Sample metrics
 * read a sketch (a bounded summary, shared by the metrics naming it) that keeps its own
 * replicates.
 *
 * Memory, with B replicates: 8·W numbers for the totals, 8·W_b·B bytes for the bootstrapped
 * additive totals (W_b of them), and each sketch's bound (see the sketches), whatever the number
 * of cases.
 *
 * @module
 */
import { isAnswered, isUnlabelled } from "./_answered.ts";
import { quantize } from "./_cells.ts";
import { percentileInterval } from "./_quantile.ts";
import type {
  AdditiveMetric,
  MetricBase,
  MetricDefinition,
  MetricInput,
  MetricQuestionType,
  SampleMetric,
  Sketch,
} from "./registry.ts";

/** Two-sided interval. */
type Interval = [number, number];

/**
 * Whether a metric covers a decision: it has gold (a decision whose `gold` is null — a user
 * question set's unlabelled row — is asked and recorded but never scored, not even as a miss),
 * its type is one of the metric's types, and it is answered when the metric is over answered
 * decisions.
 *
 * @param metric The metric.
 * @param decision The decision.
 * @returns True when the decision counts for the metric.
 */
export function covers(metric: MetricBase, decision: MetricInput): boolean {
  if (isUnlabelled(decision)) return false;
  if (metric.types && !metric.types.includes(decision.type as MetricQuestionType)) return false;
  return metric.over === "all" || isAnswered(decision);
}

/**
 * What decides which decisions a metric covers (its `over` and `types`): metrics with the same
 * key cover the same decisions, so they can share one set of totals or one sketch.
 *
 * @param metric The metric.
 * @returns The key, e.g. `answered|noul`.
 */
export function coverageKey(metric: MetricBase): string {
  return `${metric.over}|${metric.types?.join(",") ?? "*"}`;
}

/** What a group computes. */
export interface GroupPlan {
  /** The metrics whose point estimates are kept. */
  readonly metrics: readonly MetricDefinition[];
  /** Those of `metrics` whose replicates are kept (their intervals). */
  readonly intervalMetrics: readonly MetricDefinition[];
  /** Replicates B (0: none). */
  readonly resamples: number;
  /** Most cells of a sketch's histogram. */
  readonly cap: number;
}

/**
 * Whether `m` reads `owner`'s totals: it names it (`totalsOf`), and both have the same width and
 * cover the same decisions.
 */
function sharesTotals(m: AdditiveMetric, owner: AdditiveMetric): boolean {
  return m.totalsOf !== undefined && m.totalsOf === owner.name && owner.totalsOf === undefined &&
    m.width === owner.width && coverageKey(m) === coverageKey(owner);
}

/** The distinct coverages of a group's metrics: what a decision is checked against once. */
class Coverages {
  readonly #keys: string[] = [];
  readonly #metrics: MetricBase[] = [];

  /** The index of a metric's coverage, added when new. */
  indexOf(metric: MetricBase): number {
    const key = coverageKey(metric);
    let k = this.#keys.indexOf(key);
    if (k < 0) {
      k = this.#keys.push(key) - 1;
      this.#metrics.push(metric);
    }
    return k;
  }

  /** Whether each coverage covers a decision, written into `into`. */
  check(d: MetricInput, into: Uint8Array): void {
    for (let k = 0; k < this.#metrics.length; k++) {
      into[k] = covers(this.#metrics[k] as MetricBase, d) ? 1 : 0;
    }
  }

  get size(): number {
    return this.#keys.length;
  }
}

/** Additive metrics laid out in one totals array, a metric reading another's totals sharing them. */
class Layout {
  readonly metrics: readonly AdditiveMetric[];
  readonly offsets: number[] = [];
  /** The metrics that add into the totals (not those reading another one's). */
  readonly adders: number[] = [];
  /** Each adder's coverage index. */
  readonly coverage: number[] = [];
  readonly width: number;

  constructor(metrics: readonly AdditiveMetric[], coverages: Coverages) {
    this.metrics = metrics;
    const owners = metrics.map((m) => metrics.findIndex((o) => sharesTotals(m, o)));
    let width = 0;
    metrics.forEach((m, k) => {
      if ((owners[k] as number) >= 0) return;
      this.offsets[k] = width;
      this.adders.push(k);
      width += m.width;
    });
    owners.forEach((owner, k) => {
      if (owner >= 0) this.offsets[k] = this.offsets[owner] as number;
    });
    this.width = width;
    for (const k of this.adders) this.coverage.push(coverages.indexOf(metrics[k] as MetricBase));
  }

  /** Adds a decision's contributions into `totals` (`covered`: by coverage index). */
  add(totals: Float64Array, d: MetricInput, covered: Uint8Array): void {
    const adders = this.adders;
    for (let a = 0; a < adders.length; a++) {
      if (covered[this.coverage[a] as number] === 0) continue;
      const k = adders[a] as number;
      (this.metrics[k] as AdditiveMetric).add(totals, this.offsets[k] as number, d);
    }
  }
}

/** A sketch's state in a group, and the metrics reading it. */
interface SketchSlot {
  readonly sketch: Sketch;
  /** The metric whose coverage decides what the sketch is fed (all its readers share it). */
  readonly owner: SampleMetric;
  /** The owner's coverage index. */
  readonly coverage: number;
  readonly state: unknown;
  readonly replicated: boolean;
}

/** The metrics of one group, fed case by case. */
export class MetricGroup {
  readonly plan: GroupPlan;
  readonly #point: Layout;
  readonly #totals: Float64Array;
  readonly #boot: Layout;
  /** Per bootstrapped total, per replicate: the replicate's sum (total-major). */
  readonly #sums: Float64Array;
  readonly #row: Float64Array;
  readonly #scratch: Float64Array;
  readonly #slots = new Map<string, SketchSlot>();
  #slotList: SketchSlot[] = [];
  readonly #coverages = new Coverages();
  #covered = new Uint8Array(0);
  readonly #samples: SampleMetric[];
  readonly #booted: readonly MetricDefinition[];

  /**
   * @param plan The metrics, those bootstrapped, the replicates and the sketches' cap.
   * @throws {RangeError} When two metrics reading one sketch cover different decisions.
   */
  constructor(plan: GroupPlan) {
    this.plan = plan;
    const additive = (list: readonly MetricDefinition[]) =>
      list.filter((m): m is AdditiveMetric => m.kind === "additive");
    this.#point = new Layout(additive(plan.metrics), this.#coverages);
    this.#totals = new Float64Array(this.#point.width);
    const b = plan.resamples;
    const booted = b > 0 ? plan.metrics.filter((m) => plan.intervalMetrics.includes(m)) : [];
    this.#booted = booted;
    this.#boot = new Layout(additive(booted), this.#coverages);
    this.#sums = new Float64Array(this.#boot.width * b);
    this.#row = new Float64Array(this.#boot.width);
    this.#scratch = new Float64Array(this.#boot.width);
    this.#samples = plan.metrics.filter((m): m is SampleMetric => m.kind === "sample");
    for (const m of this.#samples) {
      const slot = this.#slots.get(m.sketch.name);
      const replicated = booted.includes(m);
      if (slot !== undefined) {
        if (coverageKey(slot.owner) !== coverageKey(m)) {
          throw new RangeError(
            `Cannot group metrics: "${m.name}" and "${slot.owner.name}" read sketch "${m.sketch.name}" over different decisions`,
          );
        }
        if (!replicated || slot.replicated) continue;
      }
      const owner = slot?.owner ?? m;
      this.#slots.set(m.sketch.name, {
        sketch: m.sketch,
        owner,
        coverage: this.#coverages.indexOf(owner),
        state: m.sketch.create({ replicates: replicated ? b : 0, cap: plan.cap }),
        replicated,
      });
    }
    this.#slotList = [...this.#slots.values()];
    this.#covered = new Uint8Array(this.#coverages.size);
  }

  /** The bootstrapped metrics (those whose replicates are kept). */
  get bootstrapped(): readonly MetricDefinition[] {
    return this.#booted;
  }

  /** Bytes held by the group's totals, replicate sums and sketches. */
  get bytes(): number {
    let bytes = this.#totals.byteLength + this.#sums.byteLength + this.#row.byteLength +
      this.#scratch.byteLength;
    for (const slot of this.#slots.values()) bytes += slot.sketch.bytes(slot.state);
    return bytes;
  }

  /**
   * Adds one case's decisions.
   *
   * @param decisions The case's decisions in this group.
   * @param weights The case's Poisson weight per replicate (null when nothing is bootstrapped).
   */
  addCase(decisions: readonly MetricInput[], weights: Uint8Array | null): void {
    const boot = this.#boot;
    const replicate = weights !== null && boot.width > 0;
    const row = this.#row;
    const scratch = this.#scratch;
    if (replicate) row.fill(0);
    const covered = this.#covered;
    const slots = this.#slotList;
    for (const d of decisions) {
      this.#coverages.check(d, covered);
      this.#point.add(this.#totals, d, covered);
      if (replicate) {
        scratch.fill(0);
        boot.add(scratch, d, covered);
        for (let j = 0; j < scratch.length; j++) {
          const v = scratch[j] as number;
          if (v !== 0) row[j] = (row[j] as number) + quantize(v);
        }
      }
      for (let k = 0; k < slots.length; k++) {
        const slot = slots[k] as SketchSlot;
        if (covered[slot.coverage] === 1) {
          slot.sketch.add(slot.state, d, slot.replicated ? weights : null);
        }
      }
    }
    if (!replicate || weights === null) return;
    const b = weights.length;
    const sums = this.#sums;
    for (let j = 0; j < row.length; j++) {
      const v = row[j] as number;
      if (v === 0) continue;
      const base = j * b;
      for (let r = 0; r < b; r++) {
        sums[base + r] = (sums[base + r] as number) + (weights[r] as number) * v;
      }
    }
  }

  /**
   * Adds another group's cases (the same plan): the result is the group of both sets of cases.
   *
   * @param other The other group.
   */
  merge(other: MetricGroup): void {
    for (let j = 0; j < this.#totals.length; j++) {
      this.#totals[j] = (this.#totals[j] as number) + (other.#totals[j] as number);
    }
    for (let j = 0; j < this.#sums.length; j++) {
      this.#sums[j] = (this.#sums[j] as number) + (other.#sums[j] as number);
    }
    for (const [name, slot] of this.#slots) {
      slot.sketch.merge(slot.state, (other.#slots.get(name) as SketchSlot).state);
    }
  }

  /**
   * The point estimates.
   *
   * @returns Each metric's value (null when n/a), keyed by name, in plan order.
   */
  values(): Record<string, number | null> {
    const out: Record<string, number | null> = {};
    const point = this.#point;
    for (const m of this.plan.metrics) {
      if (m.kind === "additive") {
        const k = point.metrics.indexOf(m);
        out[m.name] = m.value(this.#totals, point.offsets[k] as number);
      } else {
        out[m.name] = m.value(this.#state(m, false), -1);
      }
    }
    return out;
  }

  /**
   * The percentile intervals of the bootstrapped metrics; a replicate in which a metric is n/a
   * is left out of its interval.
   *
   * @param level Coverage of the interval.
   * @returns One interval per bootstrapped metric, null when it is n/a in every replicate.
   */
  intervals(level: number): Record<string, Interval | null> {
    const b = this.plan.resamples;
    const out: Record<string, Interval | null> = {};
    const booted = this.bootstrapped;
    if (b === 0 || booted.length === 0) return out;
    const boot = this.#boot;
    const stats = booted.map(() => new Float64Array(b));
    const counts = new Int32Array(booted.length);
    const row = this.#row;
    for (let r = 0; r < b; r++) {
      for (let j = 0; j < boot.width; j++) row[j] = this.#sums[j * b + r] as number;
      booted.forEach((m, k) => {
        const v = m.kind === "additive"
          ? m.value(row, boot.offsets[boot.metrics.indexOf(m)] as number)
          : m.value(this.#state(m, true), r);
        if (v === null) return;
        (stats[k] as Float64Array)[counts[k] as number] = v;
        counts[k] = (counts[k] as number) + 1;
      });
    }
    booted.forEach((m, k) => {
      out[m.name] = percentileInterval(stats[k] as Float64Array, counts[k] as number, level);
    });
    return out;
  }

  /**
   * A bootstrapped metric's value in each replicate, NaN where it is n/a: replicate r of two
   * groups fed with the same seed weighs each case alike, so their values pair up.
   *
   * @param m A bootstrapped metric of the group.
   * @returns One value per replicate.
   * @throws {RangeError} When the metric is not bootstrapped here.
   */
  replicates(m: MetricDefinition): Float64Array {
    const b = this.plan.resamples;
    if (!this.bootstrapped.includes(m)) throw new RangeError(`Cannot bootstrap "${m.name}"`);
    const out = new Float64Array(b);
    const boot = this.#boot;
    const row = this.#row;
    for (let r = 0; r < b; r++) {
      for (let j = 0; j < boot.width; j++) row[j] = this.#sums[j * b + r] as number;
      const v = m.kind === "additive"
        ? m.value(row, boot.offsets[boot.metrics.indexOf(m)] as number)
        : m.value(this.#state(m, true), r);
      out[r] = v ?? NaN;
    }
    return out;
  }

  #state(m: SampleMetric, replicated: boolean): unknown {
    const slot = this.#slots.get(m.sketch.name) as SketchSlot;
    if (replicated && !slot.replicated) throw new RangeError(`Cannot bootstrap "${m.name}"`);
    return slot.state;
  }
}
