/**
 * The Murphy (1973) decomposition of the yes/no Brier score against labels, as registry
 * definitions `brier_rel`, `brier_res` and `brier_unc`.
 *
 * Over answered yes/no (`noul`) decisions only: the forecast is f = P(yes) as predicted, the
 * outcome o = 1 when the gold label is yes (`true`), else 0. This label Brier score, mean (f − o)²
 * in [0, 1], is not the headline Brier (which compares the predicted distribution with the gold
 * distribution, summed over both answers, so a yes/no decision's headline Brier is 2·(f − g)²
 * with g the gold P(yes)).
 *
 * Decisions are grouped by distinct forecast value (exact equality of P(yes)): group k has n_k
 * decisions, forecast f_k and outcome rate ō_k; ō is the overall outcome rate and N the count.
 * - reliability `brier_rel` = Σ_k n_k (f_k − ō_k)² / N (0 best);
 * - resolution `brier_res` = Σ_k n_k (ō_k − ō)² / N (higher is better);
 * - uncertainty `brier_unc` = ō (1 − ō) (a property of the labels, not the model).
 *
 * Because every group shares one forecast, rel − res + unc equals mean (f − o)² exactly (up to
 * floating-point rounding).
 *
 * Bounded summary: the forecasts go into a histogram (`_cells.ts`) of at most `SKETCH_CELLS`
 * cells, each one distinct forecast with its count and yes count, beside the sums N, Σf², Σf·o,
 * Σ(f − o)². Past that many distinct forecasts, a cell is a dyadic grid cell of forecasts treated
 * as one group: then with S = Σ_k yes_k²/n_k over cells, N·rel = Σf² − 2Σf·o + S and
 * N·res = S − N·ō², so rel − res + unc still equals mean (f − o)².
 *
 * @module
 */
import type { SampleMetric, Sketch, SketchOptions } from "./registry.ts";
import { Cells, CELLS_NOTE, quantize, SKETCH_CELLS } from "./_cells.ts";
import { probabilityOf } from "./_distribution.ts";

/** The fields the decomposition reads from a decision. */
export interface MurphyInput {
  /** The predicted distribution (`{true, false}` for yes/no); null leaves the decision out. */
  predicted?: Readonly<Record<string, number>> | null | undefined;
  /** The gold label (`true` or `false`); null or absent: unlabelled, left out. */
  gold?: string | null | undefined;
}

/** The Murphy decomposition of a label Brier score. */
export interface MurphyDecomposition {
  /** Decisions decomposed. */
  n: number;
  /** Distinct forecast values (groups). */
  groups: number;
  /** Mean (f − o)². */
  brier: number;
  /** Reliability Σ n_k (f_k − ō_k)² / N. */
  reliability: number;
  /** Resolution Σ n_k (ō_k − ō)² / N. */
  resolution: number;
  /** Uncertainty ō (1 − ō). */
  uncertainty: number;
  /** ō: the share of decisions whose gold label is yes. */
  baseRate: number;
}

/**
 * The Murphy decomposition of the label Brier score of yes/no forecasts, grouped by distinct
 * forecast value.
 *
 * @param decisions Answered yes/no decisions (others — no `predicted`, no `gold` — are left out).
 * @returns The decomposition, or null when no decision has a forecast and a label.
 * @example
 * ```ts
 * import { murphyDecomposition } from "./murphy.ts";
 * const m = murphyDecomposition([
 *   { predicted: { true: 0.8, false: 0.2 }, gold: "true" },
 *   { predicted: { true: 0.8, false: 0.2 }, gold: "false" },
 * ])!;
 * // one group: rel (0.8 − 0.5)² = 0.09, res 0, unc 0.25, Brier (0.04 + 0.64)/2 = 0.34
 * if (Math.abs(m.reliability - m.resolution + m.uncertainty - m.brier) > 1e-12) throw new Error();
 * ```
 */
export function murphyDecomposition(
  decisions: readonly MurphyInput[],
): MurphyDecomposition | null {
  const state = FORECASTS_SKETCH.create({ replicates: 0, cap: SKETCH_CELLS });
  for (const d of decisions) FORECASTS_SKETCH.add(state, d, null);
  return decomposition(state as ForecastState, -1);
}

/** The forecasts' sketch state: the histogram and the additive sums, point and per replicate. */
interface ForecastState {
  readonly cells: Cells;
  /** Σf², Σf·o, Σ(f − o)² (point). */
  readonly sums: Float64Array;
  /** The same per replicate (sum-major, values rounded to 2^-24). */
  readonly replicateSums: Float64Array;
  /** The decomposition last computed, and its replicate (NaN: none). */
  last: MurphyDecomposition | null;
  lastReplicate: number;
}

/** The yes/no forecasts and their labels (answered yes/no decisions). */
const FORECASTS_SKETCH: Sketch = {
  name: "forecasts",
  create: (options: SketchOptions): ForecastState => ({
    cells: new Cells(options.cap, options.replicates, false),
    sums: new Float64Array(3),
    replicateSums: new Float64Array(3 * options.replicates),
    last: null,
    lastReplicate: Number.NaN,
  }),
  add(state: unknown, d: MurphyInput, weights: Uint8Array | null): void {
    if (!d.predicted || d.gold === undefined || d.gold === null) return;
    const s = state as ForecastState;
    const f = probabilityOf(d.predicted, "true");
    const o = d.gold === "true" ? 1 : 0;
    s.cells.add(f, o, weights);
    const terms = [f * f, f * o, (f - o) * (f - o)];
    for (let j = 0; j < 3; j++) s.sums[j] = (s.sums[j] as number) + (terms[j] as number);
    s.lastReplicate = Number.NaN;
    const b = s.cells.replicates;
    if (weights === null || b === 0) return;
    for (let j = 0; j < 3; j++) {
      const q = quantize(terms[j] as number);
      for (let r = 0; r < b; r++) {
        s.replicateSums[j * b + r] = (s.replicateSums[j * b + r] as number) +
          (weights[r] as number) * q;
      }
    }
  },
  merge(into: unknown, from: unknown): void {
    const s = into as ForecastState;
    const other = from as ForecastState;
    s.cells.merge(other.cells);
    other.sums.forEach((v, j) => s.sums[j] = (s.sums[j] as number) + v);
    other.replicateSums.forEach((v, j) => s.replicateSums[j] = (s.replicateSums[j] as number) + v);
    s.lastReplicate = Number.NaN;
  },
  bytes: (state: unknown) => {
    const s = state as ForecastState;
    return s.cells.bytes + s.sums.byteLength + s.replicateSums.byteLength;
  },
};

/** The decomposition of a replicate (−1: the point estimate), kept for the three components. */
function decomposition(state: ForecastState, replicate: number): MurphyDecomposition | null {
  if (state.lastReplicate === replicate) return state.last;
  state.last = decompose(state, replicate);
  state.lastReplicate = replicate;
  return state.last;
}

function decompose(state: ForecastState, replicate: number): MurphyDecomposition | null {
  const { cells } = state;
  const b = cells.replicates;
  const sum = (j: number) =>
    replicate < 0 ? state.sums[j] as number : state.replicateSums[j * b + replicate] as number;
  let n = 0;
  let totalYes = 0;
  // Cells in ascending order of forecast: the same sums whatever order the decisions came in.
  const order = cells.order();
  for (const c of order) {
    n += cells.n(c, replicate);
    totalYes += cells.hits(c, replicate);
  }
  if (n === 0) return null;
  const base = totalYes / n;
  let reliability = 0;
  let resolution = 0;
  let spread = 0;
  let groups = 0;
  for (const c of order) {
    const k = cells.n(c, replicate);
    if (k === 0) continue;
    groups++;
    const yes = cells.hits(c, replicate);
    const rate = yes / k;
    if (cells.exact) {
      const f = cells.value(c);
      reliability += k * (f - rate) * (f - rate);
      resolution += k * (rate - base) * (rate - base);
    } else {
      spread += yes * rate;
    }
  }
  if (!cells.exact) {
    reliability = Math.max(0, sum(0) - 2 * sum(1) + spread);
    resolution = Math.max(0, spread - n * base * base);
  }
  return {
    n,
    groups,
    brier: sum(2) / n,
    reliability: reliability / n,
    resolution: resolution / n,
    uncertainty: base * (1 - base),
    baseRate: base,
  };
}

function component(
  name: string,
  label: string,
  description: string,
  higherIsBetter: boolean,
  pick: (m: MurphyDecomposition) => number,
): SampleMetric {
  return {
    name,
    label,
    description,
    over: "answered",
    higherIsBetter,
    range: [0, 1],
    format: "number",
    types: ["noul"],
    kind: "sample",
    sketch: FORECASTS_SKETCH,
    value(state: unknown, replicate: number): number | null {
      const m = decomposition(state as ForecastState, replicate);
      return m === null ? null : pick(m);
    },
  };
}

/** `brier_rel`: reliability of P(yes) against yes/no labels (Murphy 1973). */
export const BRIER_REL: SampleMetric = component(
  "brier_rel",
  "Brier reliability",
  `Murphy (1973) reliability of P(yes) vs the gold label, yes/no questions, grouped by distinct forecast: Σ n_k(f_k − ō_k)²/N; forecasts ${CELLS_NOTE}`,
  false,
  (m) => m.reliability,
);

/** `brier_res`: resolution of P(yes) against yes/no labels (Murphy 1973). */
export const BRIER_RES: SampleMetric = component(
  "brier_res",
  "Brier resolution",
  `Murphy (1973) resolution of P(yes) vs the gold label, yes/no questions, grouped by distinct forecast: Σ n_k(ō_k − ō)²/N; forecasts ${CELLS_NOTE}`,
  true,
  (m) => m.resolution,
);

/** `brier_unc`: uncertainty of the yes/no labels, ō(1 − ō) (Murphy 1973). */
export const BRIER_UNC: SampleMetric = component(
  "brier_unc",
  "Brier uncertainty",
  "Murphy (1973) uncertainty ō(1 − ō) of the gold labels of yes/no questions (answered decisions)",
  false,
  (m) => m.uncertainty,
);

/** The Murphy decomposition's three components, in report order. */
export const MURPHY_METRICS: readonly SampleMetric[] = [BRIER_REL, BRIER_RES, BRIER_UNC];
