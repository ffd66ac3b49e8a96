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
 * floating-point rounding); with binned forecasts it would not.
 *
 * @module
 */
import type { MetricInput, SampleMetric } from "./registry.ts";
import { LastWeights, ones } from "./_confidence.ts";
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
  return prepareMurphy(decisions)(undefined);
}

/**
 * The decomposition's weighted form: each decision's forecast group found once; a weighting
 * (decision i counted weights[i] times) then sums per group.
 */
function prepareMurphy(
  decisions: readonly MurphyInput[],
): (weights: Float64Array | undefined) => MurphyDecomposition | null {
  const groupOf = new Map<number, number>();
  const forecasts: number[] = [];
  const group = new Int32Array(decisions.length).fill(-1);
  const forecast = new Float64Array(decisions.length);
  const outcome = new Float64Array(decisions.length);
  decisions.forEach((d, i) => {
    if (!d.predicted || d.gold === undefined || d.gold === null) return;
    const f = probabilityOf(d.predicted, "true");
    let g = groupOf.get(f);
    if (g === undefined) {
      groupOf.set(f, g = forecasts.length);
      forecasts.push(f);
    }
    group[i] = g;
    forecast[i] = f;
    outcome[i] = d.gold === "true" ? 1 : 0;
  });
  const size = new Float64Array(forecasts.length);
  const yes = new Float64Array(forecasts.length);
  return (weights) => {
    size.fill(0);
    yes.fill(0);
    let n = 0;
    let totalYes = 0;
    let squared = 0;
    // Without weights each decision counts 1 (the same sums, one loop).
    const ws = weights ?? ones(decisions.length);
    for (let i = 0; i < group.length; i++) {
      const g = group[i] as number;
      if (g < 0) continue;
      // Adding a weight of 0 leaves every sum as it was: no branch on it.
      const w = ws[i] as number;
      const o = outcome[i] as number;
      const f = forecast[i] as number;
      size[g] = (size[g] as number) + w;
      yes[g] = (yes[g] as number) + w * o;
      n += w;
      totalYes += w * o;
      squared += w * (f - o) * (f - o);
    }
    if (n === 0) return null;
    const base = totalYes / n;
    let reliability = 0;
    let resolution = 0;
    let groups = 0;
    for (let g = 0; g < forecasts.length; g++) {
      const k = size[g] as number;
      if (k === 0) continue;
      groups++;
      const f = forecasts[g] as number;
      const rate = (yes[g] as number) / k;
      reliability += k * (f - rate) * (f - rate);
      resolution += k * (rate - base) * (rate - base);
    }
    return {
      n,
      groups,
      brier: squared / n,
      reliability: reliability / n,
      resolution: resolution / n,
      uncertainty: base * (1 - base),
      baseRate: base,
    };
  };
}

let lastMurphy: {
  decisions: readonly MurphyInput[];
  weighted: (weights: Float64Array, stamp?: number) => MurphyDecomposition | null;
} | null = null;

/**
 * The weighted decomposition shared by the three components in one bootstrap (they read the
 * same decision list): computed once per resample, reused while the weights are unchanged.
 */
function sharedMurphy(
  decisions: readonly MurphyInput[],
): (weights: Float64Array, stamp?: number) => MurphyDecomposition | null {
  if (lastMurphy && lastMurphy.decisions === decisions) return lastMurphy.weighted;
  const compute = prepareMurphy(decisions);
  const kept = new LastWeights();
  let last: MurphyDecomposition | null = null;
  const weighted = (weights: Float64Array, stamp?: number) => {
    if (kept.same(weights, stamp)) return last;
    last = compute(weights);
    kept.keep(weights, stamp);
    return last;
  };
  lastMurphy = { decisions, weighted };
  return weighted;
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
    compute(decisions: readonly MetricInput[]): number | null {
      const m = murphyDecomposition(decisions);
      return m === null ? null : pick(m);
    },
    prepare(decisions: readonly MetricInput[]) {
      const weighted = sharedMurphy(decisions);
      return (weights: Float64Array, stamp?: number) => {
        const m = weighted(weights, stamp);
        return m === null ? null : pick(m);
      };
    },
  };
}

/** `brier_rel`: reliability of P(yes) against yes/no labels (Murphy 1973). */
export const BRIER_REL: SampleMetric = component(
  "brier_rel",
  "Brier reliability",
  "Murphy (1973) reliability of P(yes) vs the gold label, yes/no questions, grouped by distinct forecast: Σ n_k(f_k − ō_k)²/N",
  false,
  (m) => m.reliability,
);

/** `brier_res`: resolution of P(yes) against yes/no labels (Murphy 1973). */
export const BRIER_RES: SampleMetric = component(
  "brier_res",
  "Brier resolution",
  "Murphy (1973) resolution of P(yes) vs the gold label, yes/no questions, grouped by distinct forecast: Σ n_k(ō_k − ō)²/N",
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
