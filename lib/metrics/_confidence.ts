/**
 * Private: the bounded summary the rank-based estimators read (equal-mass ECE and its debiased
 * form, the risk–coverage curve, AURC, accuracy at a coverage): answered decisions' top-label
 * confidences in a {@linkcode Cells} histogram, each cell a run of tied confidences with its
 * count and correct count — exact while a group has at most `cap` distinct confidences, a dyadic
 * grid of at most `cap` cells past that (see `_cells.ts`).
 *
 * @module
 */
import { Cells } from "./_cells.ts";
import type { MetricInput, Sketch, SketchOptions } from "./registry.ts";

/** The fields read. */
export interface RankInput {
  /** Top-label confidence; null or absent leaves the decision out. */
  confidence?: number | null | undefined;
  /** The predicted answer equals the gold label. */
  correct?: boolean | null | undefined;
}

/** Weighted runs of tied confidences, ascending. */
export interface WeightedTies {
  /** The runs' confidences (a grid cell: its mean confidence), ascending. */
  values: Float64Array;
  /** Decisions per run (weighted in a replicate). */
  n: Float64Array;
  /** Correct decisions per run. */
  correct: Float64Array;
  /** Sum of the run's confidences. */
  sums: Float64Array;
  /** Total weight of the answered decisions. */
  total: number;
}

/** The tie runs' state: the histogram and the runs last read from it. */
export interface TiesState {
  /** The confidences' histogram. */
  readonly cells: Cells;
  /** The replicate whose runs `ties` holds (NaN: none). */
  replicate: number;
  /** The runs last read. */
  ties: WeightedTies | null;
  /** Values the estimators derive from the runs of `replicate`, by name (shared work). */
  derived: Map<string, unknown>;
}

/** The tie runs of answered decisions' confidences. */
export const TIES_SKETCH: Sketch = {
  name: "ties",
  create: (options: SketchOptions): TiesState => ({
    cells: new Cells(options.cap, options.replicates, true),
    replicate: Number.NaN,
    ties: null,
    derived: new Map(),
  }),
  add(state: unknown, d: MetricInput, weights: Uint8Array | null): void {
    if (typeof d.confidence !== "number") return;
    if (d.gold === null || d.correct === null) return; // unlabelled: neither right nor wrong
    const s = state as TiesState;
    s.cells.add(d.confidence, d.correct ? 1 : 0, weights);
    s.replicate = Number.NaN;
  },
  merge(into: unknown, from: unknown): void {
    (into as TiesState).cells.merge((from as TiesState).cells);
    (into as TiesState).replicate = Number.NaN;
  },
  bytes: (state: unknown) => (state as TiesState).cells.bytes,
};

/**
 * The runs of a replicate (−1: the point estimate), read once and kept until the next one.
 *
 * @param state The sketch's state.
 * @param replicate −1, or the replicate.
 * @returns The weighted runs, ascending.
 */
export function tiesOf(state: TiesState, replicate: number): WeightedTies {
  if (state.ties !== null && state.replicate === replicate) return state.ties;
  const { cells } = state;
  const order = cells.order();
  const k = order.length;
  const ties = state.ties !== null && state.ties.values.length === k ? state.ties : {
    values: new Float64Array(k),
    n: new Float64Array(k),
    correct: new Float64Array(k),
    sums: new Float64Array(k),
    total: 0,
  };
  let total = 0;
  for (let t = 0; t < k; t++) {
    const c = order[t] as number;
    const n = cells.n(c, replicate);
    ties.values[t] = cells.value(c);
    ties.n[t] = n;
    ties.correct[t] = cells.hits(c, replicate);
    ties.sums[t] = cells.sum(c, replicate);
    total += n;
  }
  ties.total = total;
  state.ties = ties;
  state.replicate = replicate;
  state.derived.clear();
  return ties;
}

/**
 * A value derived from the runs of a replicate, computed once for the metrics that share it.
 *
 * @param state The sketch's state.
 * @param replicate −1, or the replicate.
 * @param name What is derived.
 * @param derive Computes it from the runs.
 * @returns The derived value.
 */
export function derivedOf<T>(
  state: TiesState,
  replicate: number,
  name: string,
  derive: (ties: WeightedTies) => T,
): T {
  const ties = tiesOf(state, replicate);
  if (state.derived.has(name)) return state.derived.get(name) as T;
  const value = derive(ties);
  state.derived.set(name, value);
  return value;
}

/**
 * The runs of a list of decisions (no replicates), for the functions over plain arrays.
 *
 * @param decisions Decisions; those without a confidence are left out.
 * @param cap Most cells (distinct confidences kept exactly up to this many).
 * @returns The state, every decision added.
 */
export function tiesOfList(decisions: readonly RankInput[], cap: number): TiesState {
  const state = TIES_SKETCH.create({ replicates: 0, cap }) as TiesState;
  for (const d of decisions) TIES_SKETCH.add(state, d, null);
  return state;
}
