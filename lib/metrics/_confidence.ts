/**
 * Private: answered decisions' confidences grouped into runs of tied values, sorted once, for the
 * rank-based estimators (equal-mass bins, the risk–coverage curve). A weighted evaluation then
 * only adds each decision's weight into its run, so a bootstrap resample needs no sort.
 *
 * @module
 */

/** The fields read. */
export interface RankInput {
  /** Top-label confidence; null or absent leaves the decision out. */
  confidence?: number | null | undefined;
  /** The predicted answer equals the gold label. */
  correct?: boolean | undefined;
}

/** Decisions' tie runs, sorted once. */
export interface PreparedTies {
  /** The distinct confidences, ascending. */
  values: Float64Array;
  /** Per input decision, the index of its run in `values`; −1 when it is unanswered. */
  tieOf: Int32Array;
  /** Per input decision, 1 when it is correct (a float: the weighted sum multiplies it). */
  correct: Float64Array;
  /**
   * The answered decisions' indices run by run (ascending confidence), in input order within a
   * run: run `t` is `byRun[runStart[t]]` to `byRun[runStart[t + 1]]`.
   */
  byRun: Int32Array;
  /** Where each run starts in `byRun`, and its length at the end (`values.length + 1` entries). */
  runStart: Int32Array;
}

/** Weighted sizes of the runs. */
export interface WeightedTies {
  /** The distinct confidences, ascending. */
  values: Float64Array;
  /** Weighted decisions per run. */
  n: Float64Array;
  /** Weighted correct decisions per run. */
  correct: Float64Array;
  /** Total weight of the answered decisions. */
  total: number;
}

let allOnes = new Float64Array(0);

/**
 * A weight of 1 for each of `n` decisions, for the weighted loops' unweighted calls (shared, never
 * written: it may be longer than `n`).
 *
 * @param n The number of decisions.
 * @returns At least `n` ones.
 */
export function ones(n: number): Float64Array {
  if (allOnes.length < n) allOnes = new Float64Array(n).fill(1);
  return allOnes;
}

/**
 * Sorts decisions' confidences into tie runs.
 *
 * @param decisions Decisions (unanswered ones get run −1).
 * @returns The runs and each decision's run.
 */
export function prepareTies(decisions: readonly RankInput[]): PreparedTies {
  const n = decisions.length;
  const tieOf = new Int32Array(n).fill(-1);
  const correct = new Float64Array(n);
  const order: number[] = [];
  decisions.forEach((d, i) => {
    if (d.correct) correct[i] = 1;
    if (typeof d.confidence === "number") order.push(i);
  });
  const conf = (i: number) => (decisions[i] as RankInput).confidence as number;
  order.sort((a, b) => conf(a) - conf(b));
  // The sort is stable: within a run the indices stay in input order.
  const values: number[] = [];
  const runStart: number[] = [];
  order.forEach((i, k) => {
    const v = conf(i);
    if (values.length === 0 || values[values.length - 1] !== v) {
      values.push(v);
      runStart.push(k);
    }
    tieOf[i] = values.length - 1;
  });
  runStart.push(order.length);
  return {
    values: Float64Array.from(values),
    tieOf,
    correct,
    byRun: Int32Array.from(order),
    runStart: Int32Array.from(runStart),
  };
}

/**
 * The runs' sizes when decision `i` counts `weights[i]` times.
 *
 * @param prepared From {@linkcode prepareTies}.
 * @param weights One weight per input decision; omitted: 1 each.
 * @param into Run sizes to overwrite (a bootstrap reuses one per metric); omitted: new ones.
 * @returns Weighted run sizes.
 */
export function weighTies(
  prepared: PreparedTies,
  weights?: Float64Array,
  into?: WeightedTies,
): WeightedTies {
  const { values, tieOf, correct, byRun, runStart } = prepared;
  const n = into ? into.n : new Float64Array(values.length);
  const right = into ? into.correct : new Float64Array(values.length);
  // Without weights each decision counts 1: the same loop over a weight of 1 per decision (one
  // loop, no test per decision; the sums are the same).
  const w = weights ?? ones(tieOf.length);
  // Run by run, each run's decisions in input order: every sum adds the same terms in the same
  // order as a pass over the decisions would, but in a register, not through memory (a few runs
  // shared by thousands of decisions made that pass wait on its own stores). Adding a weight of 0
  // leaves a sum as it was: no branch on it (nor on `correct`).
  for (let t = 0; t < values.length; t++) {
    let size = 0;
    let hits = 0;
    const end = runStart[t + 1] as number;
    for (let k = runStart[t] as number; k < end; k++) {
      const i = byRun[k] as number;
      const wi = w[i] as number;
      size += wi;
      hits += wi * (correct[i] as number);
    }
    n[t] = size;
    right[t] = hits;
  }
  // The total in input order, as before.
  let total = 0;
  for (let i = 0; i < tieOf.length; i++) if ((tieOf[i] as number) >= 0) total += w[i] as number;
  if (into) {
    into.total = total;
    return into;
  }
  return { values, n, correct: right, total };
}

/**
 * Tie runs shared by the rank-based estimators that read the same decisions in the same
 * bootstrap or summary (`ece_em`, `ece_debiased`, `aurc`, `acc_at_50`, `acc_at_80`): one sort per
 * bootstrap or summary, one weighting per resample. Reuse is decided by content (the confidences and
 * correctness read, and the weights), or for the weights by the array and the stamp its caller
 * changes with every refill; never by identity alone, so a changed input is recomputed.
 */
export interface SharedTies {
  /**
   * The weighted runs for these weights (the returned object is overwritten by the next call).
   * With a `stamp`, the runs are reused when the array and the stamp are those of the last call
   * (the caller changes the stamp whenever it refills the array); without, when the weights are.
   */
  weigh(weights: Float64Array, stamp?: number): WeightedTies;
  /** The runs with every decision counted once (computed with the sort, then kept). */
  unweighted(): WeightedTies;
  /** A counter that changes whenever `weigh` recomputed the runs. */
  readonly version: number;
}

let lastShared: { confidence: Float64Array; correct: Uint8Array; shared: SharedTies } | null = null;

/**
 * The shared tie runs of decisions, prepared once for equal decisions.
 *
 * @param decisions The covered decisions, in a fixed order.
 * @returns The shared runs.
 */
export function sharedTies(decisions: readonly RankInput[]): SharedTies {
  const confidence = new Float64Array(decisions.length);
  const correct = new Uint8Array(decisions.length);
  decisions.forEach((d, i) => {
    // −1 marks an unanswered decision (confidences are in [0, 1]), so `!==` compares exactly.
    confidence[i] = typeof d.confidence === "number" ? d.confidence : -1;
    correct[i] = d.correct ? 1 : 0;
  });
  if (
    lastShared && sameNumbers(lastShared.confidence, confidence) &&
    sameBytes(lastShared.correct, correct)
  ) return lastShared.shared;
  const prepared = prepareTies(decisions);
  const unweighted = weighTies(prepared);
  // The runs of the last weighting, made on the first one.
  let buffer: WeightedTies | null = null;
  const last = new LastWeights();
  let version = 0;
  const shared: SharedTies = {
    unweighted: () => unweighted,
    weigh(weights, stamp) {
      if (buffer !== null && last.same(weights, stamp)) return buffer;
      buffer = weighTies(prepared, weights, buffer ?? undefined);
      last.keep(weights, stamp);
      version++;
      return buffer;
    },
    get version() {
      return version;
    },
  };
  lastShared = { confidence, correct, shared };
  return shared;
}

/**
 * The weights of the last evaluation of work shared by several metrics: the array and its stamp
 * when the caller gave one (it changes the stamp whenever it refills the array), else a copy of
 * the weights.
 */
export class LastWeights {
  #array: Float64Array | null = null;
  #stamp: number | undefined;
  #copy: Float64Array | null = null;

  /**
   * Whether these weights are those last kept.
   *
   * @param weights The weights.
   * @param stamp The caller's stamp of the array, if any.
   * @returns True when the last evaluation holds for them.
   */
  same(weights: Float64Array, stamp: number | undefined): boolean {
    if (stamp !== undefined) return weights === this.#array && stamp === this.#stamp;
    return this.#copy !== null && sameNumbers(this.#copy, weights);
  }

  /**
   * Keeps the weights just evaluated.
   *
   * @param weights The weights.
   * @param stamp The caller's stamp of the array, if any.
   */
  keep(weights: Float64Array, stamp: number | undefined): void {
    if (stamp !== undefined) {
      this.#array = weights;
      this.#stamp = stamp;
      this.#copy = null;
      return;
    }
    this.#array = null;
    this.#stamp = undefined;
    if (this.#copy?.length === weights.length) this.#copy.set(weights);
    else this.#copy = weights.slice();
  }
}

function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
