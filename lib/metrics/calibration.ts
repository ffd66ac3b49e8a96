/**
 * Top-label calibration estimators beside the headline 10-bin ECE, each a registry
 * definition, and the binning functions they share with the scorer profile and the temperature
 * what-if.
 *
 * Every estimator reads the top-label confidence (the predicted answer's probability) and whether
 * the predicted answer is the gold label, over answered decisions of every question type:
 *
 * - `ece_15`: Σ_b n_b·|acc_b − conf_b| / N over 15 equal-width bins, bin = min(⌊conf·15⌋, 14)
 *   (so 1.0 falls in the last bin), empty bins skipped: the headline ECE with 15 bins.
 * - `ece_em`: the same sum over 15 equal-mass bins (Nixon et al. 2019, "Measuring Calibration in
 *   Deep Learning"). Decisions are sorted by confidence; the decision at 0-based rank r goes to
 *   bin ⌊15·r / N⌋, where every decision of a run of tied confidences takes the rank of the first
 *   of them, so a tie never straddles two bins and the result does not depend on input order.
 *   Bins then hold ⌊N/15⌋ or ⌈N/15⌉ decisions when there are no ties; with ties some hold more
 *   and some none (empty bins are skipped).
 * - `ece_debiased`: Kumar, Liang & Ma 2019 ("Verified Uncertainty Calibration") bias correction
 *   of the ℓ1 ECE over the `ece_em` bins. The plug-in term of a bin, |acc_b − conf_b|, overstates
 *   the true gap because acc_b is noisy; the correction is 2·plug-in − E[plug-in with acc_b
 *   replaced by a normal draw of mean acc_b and variance acc_b(1 − acc_b)/n_b]. Kumar et al.
 *   estimate that expectation by resampling; here it is taken exactly, with
 *   E|X| = σ·√(2/π)·exp(−μ²/2σ²) + μ·(1 − 2Φ(−μ/σ)) for X ~ N(μ, σ²) (a bin whose accuracy is 0 or
 *   1 has σ = 0 and keeps its plug-in term). The estimate is Σ_b (n_b/N)·(2|acc_b − conf_b| −
 *   E_b) and is not clamped: a value at or below 0 means the miscalibration is within sampling
 *   noise.
 * - `ece_per_question`: the headline 10-bin ECE computed within each question
 *   (`workflow/question`) and averaged with equal weight over questions with an answered decision
 *   (30 sums per question: memory grows with questions, not decisions).
 * - `mce`: maximum calibration error, max_b |acc_b − conf_b| over the non-empty headline bins
 *   (10 equal-width, min(⌊conf·10⌋, 9)): the largest gap in the reliability table.
 *
 * @module
 */
import { addAt, BIN_COUNT } from "./_bins.ts";
import { questionKey } from "./_distribution.ts";
import { CELLS_NOTE, quantize, SKETCH_CELLS } from "./_cells.ts";
import {
  derivedOf,
  TIES_SKETCH,
  tiesOf,
  tiesOfList,
  type TiesState,
  type WeightedTies,
} from "./_confidence.ts";
import type {
  AdditiveMetric,
  MetricInput,
  SampleMetric,
  Sketch,
  SketchOptions,
} from "./registry.ts";

/** The fields the binning functions read from a decision. */
export interface ConfidenceInput {
  /** The predicted answer's probability; null or absent (not answered) leaves it out. */
  confidence?: number | null | undefined;
  /** The predicted answer equals the gold label; null (unlabelled) leaves the decision out. */
  correct?: boolean | null | undefined;
  /** The gold label; null (unlabelled) leaves the decision out. */
  gold?: string | null | undefined;
}

/** How confidences are cut into bins. */
export type Binning = "equal-width" | "equal-mass";

/** Options of {@linkcode calibrationBins}. */
export interface CalibrationBinOptions {
  /**
   * Number of bins.
   *
   * @default {10}
   */
  bins?: number;
  /**
   * Equal-width bins (bin = min(⌊conf·bins⌋, bins − 1)) or equal-mass bins (by confidence rank,
   * ties kept together: see the module doc).
   *
   * @default {"equal-width"}
   */
  binning?: Binning;
}

/** One non-empty confidence bin. */
export interface CalibrationBin {
  /** Bin index (0 first). */
  index: number;
  /** Lower edge: b/bins for equal-width bins, the smallest confidence in the bin for equal-mass. */
  lower: number;
  /** Upper edge: (b+1)/bins for equal-width bins, the largest confidence for equal-mass. */
  upper: number;
  /** Decisions in the bin. */
  n: number;
  /** Correct decisions in the bin. */
  correct: number;
  /** Sum of the bin's confidences. */
  confidenceSum: number;
}

/**
 * Cuts answered decisions into confidence bins.
 *
 * @param decisions Decisions; those without a confidence are left out.
 * @param options Number of bins and binning.
 * @returns The non-empty bins, lowest first.
 * @throws {RangeError} When `bins` is not a positive integer.
 * @example
 * ```ts
 * import { calibrationBins } from "./calibration.ts";
 * const bins = calibrationBins([
 *   { confidence: 0.55, correct: true },
 *   { confidence: 0.95, correct: false },
 * ], { bins: 10 });
 * if (bins.length !== 2 || bins[1]!.index !== 9) throw new Error("two bins");
 * ```
 */
export function calibrationBins(
  decisions: readonly ConfidenceInput[],
  options: CalibrationBinOptions = {},
): CalibrationBin[] {
  const { bins = BIN_COUNT, binning = "equal-width" } = options;
  if (!Number.isSafeInteger(bins) || bins < 1) {
    throw new RangeError(`Cannot bin confidences: bin count "${bins}" is not a positive integer`);
  }
  const byIndex = new Map<number, CalibrationBin>();
  const put = (index: number, value: number, n: number, correct: number) => {
    let bin = byIndex.get(index);
    if (!bin) {
      bin = {
        index,
        lower: binning === "equal-width" ? index / bins : value,
        upper: binning === "equal-width" ? (index + 1) / bins : value,
        n: 0,
        correct: 0,
        confidenceSum: 0,
      };
      byIndex.set(index, bin);
    }
    bin.n += n;
    bin.correct += correct;
    bin.confidenceSum += n === 1 ? value : value * n;
    if (binning === "equal-mass") {
      bin.lower = Math.min(bin.lower, value);
      bin.upper = Math.max(bin.upper, value);
    }
  };
  if (binning === "equal-width") {
    for (const d of decisions) {
      if (typeof d.confidence !== "number" || d.gold === null || d.correct === null) continue;
      put(widthBin(d.confidence, bins), d.confidence, 1, d.correct ? 1 : 0);
    }
  } else {
    return equalMassBins(tiesOf(tiesOfList(decisions, SKETCH_CELLS), -1), bins);
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

/**
 * Equal-mass bins of weighted tie runs: runs in ascending order, each in bin
 * ⌊bins·(weight of the runs before it)/total⌋.
 */
function equalMassBins(ties: WeightedTies, bins: number): CalibrationBin[] {
  const out: CalibrationBin[] = [];
  let first = 0;
  for (let t = 0; t < ties.values.length; t++) {
    const n = ties.n[t] as number;
    if (n === 0) continue;
    const value = ties.values[t] as number;
    const index = Math.floor((bins * first) / ties.total);
    let bin = out[out.length - 1];
    if (!bin || bin.index !== index) {
      bin = { index, lower: value, upper: value, n: 0, correct: 0, confidenceSum: 0 };
      out.push(bin);
    }
    bin.n += n;
    bin.correct += ties.correct[t] as number;
    bin.confidenceSum += ties.sums[t] as number;
    bin.upper = value;
    first += n;
  }
  return out;
}

/** A sample metric over 15 equal-mass bins of the tie runs (shared by the metrics reading them). */
function equalMassMetric(
  estimate: (bins: readonly CalibrationBin[]) => number | null,
): Pick<SampleMetric, "kind" | "sketch" | "value"> {
  return {
    kind: "sample",
    sketch: TIES_SKETCH,
    value: (state, replicate) =>
      estimate(derivedOf(state as TiesState, replicate, "bins15", (t) => equalMassBins(t, 15))),
  };
}

/** Equal-width bin of a confidence: min(⌊conf·bins⌋, bins − 1), values below 0 in bin 0. */
function widthBin(confidence: number, bins: number): number {
  return Math.max(0, Math.min(Math.trunc(confidence * bins), bins - 1));
}

/**
 * Expected calibration error of bins: Σ_b n_b·|acc_b − conf_b| / N.
 *
 * @param bins Bins from {@linkcode calibrationBins}.
 * @returns The ECE, or null when the bins hold no decision.
 */
export function eceOfBins(bins: readonly CalibrationBin[]): number | null {
  let n = 0;
  let sum = 0;
  for (const bin of bins) {
    n += bin.n;
    sum += Math.abs(bin.correct - bin.confidenceSum);
  }
  return n === 0 ? null : sum / n;
}

/**
 * Maximum calibration error of bins: max_b |acc_b − conf_b| over non-empty bins.
 *
 * @param bins Bins from {@linkcode calibrationBins}.
 * @returns The MCE, or null when the bins hold no decision.
 */
export function mceOfBins(bins: readonly CalibrationBin[]): number | null {
  let max: number | null = null;
  for (const bin of bins) {
    if (bin.n === 0) continue;
    const gap = Math.abs(bin.correct - bin.confidenceSum) / bin.n;
    if (max === null || gap > max) max = gap;
  }
  return max;
}

/**
 * Debiased ℓ1 ECE of bins (Kumar, Liang & Ma 2019, with the normal expectation taken exactly):
 * Σ_b (n_b/N)·(2|acc_b − conf_b| − E|X_b − conf_b|), X_b ~ N(acc_b, acc_b(1 − acc_b)/n_b).
 *
 * @param bins Bins from {@linkcode calibrationBins} (the registry uses 15 equal-mass bins).
 * @returns The estimate (may be negative), or null when the bins hold no decision.
 */
export function debiasedEceOfBins(bins: readonly CalibrationBin[]): number | null {
  let n = 0;
  let sum = 0;
  for (const bin of bins) {
    if (bin.n === 0) continue;
    n += bin.n;
    const accuracy = bin.correct / bin.n;
    const gap = accuracy - bin.confidenceSum / bin.n;
    const sd = Math.sqrt(accuracy * (1 - accuracy) / bin.n);
    sum += bin.n * (2 * Math.abs(gap) - meanAbsoluteNormal(gap, sd));
  }
  return n === 0 ? null : sum / n;
}

/** E|X| for X ~ N(mu, sd²): sd·√(2/π)·exp(−mu²/2sd²) + mu·(1 − 2Φ(−mu/sd)); |mu| when sd is 0. */
export function meanAbsoluteNormal(mu: number, sd: number): number {
  if (!(sd > 0)) return Math.abs(mu);
  const z = mu / sd;
  return sd * Math.sqrt(2 / Math.PI) * Math.exp(-z * z / 2) + mu * (1 - 2 * normalCdf(-z));
}

/** Φ(x), the standard normal CDF, through erfc (fractional error below 1.2e-7). */
function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/**
 * The complementary error function by the Chebyshev fit in Press et al., Numerical Recipes
 * (§6.2), fractional error below 1.2e-7 everywhere.
 */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly = -z * z - 1.26551223 +
    t * (1.00002368 +
        t * (0.37409196 +
            t * (0.09678418 +
                t * (-0.18628806 +
                    t * (0.27886807 +
                        t *
                          (-1.13520398 +
                            t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(poly);
  return x >= 0 ? r : 2 - r;
}

/**
 * The mean of per-question ECEs: within each question (`workflow/question`), the ECE over
 * `bins` equal-width bins; then the unweighted mean over questions with an answered decision.
 *
 * @param decisions Decisions with their question and workflow.
 * @param bins Number of equal-width bins.
 * @returns The mean, or null when nothing is answered.
 */
export function perQuestionEce(
  decisions: readonly (ConfidenceInput & {
    workflow?: string | undefined;
    question?: string | undefined;
  })[],
  bins: number = BIN_COUNT,
): number | null {
  const sketch = perQuestionSketch(bins);
  const state = sketch.create({ replicates: 0, cap: SKETCH_CELLS });
  for (const d of decisions) sketch.add(state, d, null);
  return perQuestionValue(state as PerQuestionState, -1);
}

/** One question's bins: point sums side by side per bin, and per replicate. */
interface QuestionBins {
  /** Per bin: decisions, correct ones, confidence sum (3·bins). */
  point: Float64Array;
  /** Per bin, per replicate (bin-major): weighted decisions. */
  n: Uint32Array;
  /** Weighted correct decisions. */
  correct: Uint32Array;
  /** Weighted confidence sums (values rounded to 2^-24). */
  confidence: Float64Array;
}

/** The per-question sketch's state. */
interface PerQuestionState {
  bins: number;
  replicates: number;
  questions: Map<string, QuestionBins>;
}

/**
 * The per-question equal-width bins: per question 3·bins sums, and 3·bins·B with B replicates
 * (memory grows with the number of questions, never with the number of decisions).
 */
function perQuestionSketch(bins: number): Sketch {
  return {
    name: `per_question_${bins}`,
    create: (options: SketchOptions): PerQuestionState => ({
      bins,
      replicates: options.replicates,
      questions: new Map(),
    }),
    add(state: unknown, d: MetricInput, weights: Uint8Array | null): void {
      if (typeof d.confidence !== "number") return;
      const s = state as PerQuestionState;
      const q = questionBins(s, questionKey(d));
      const b = widthBin(d.confidence, bins);
      const j = 3 * b;
      const hit = d.correct ? 1 : 0;
      q.point[j] = (q.point[j] as number) + 1;
      q.point[j + 1] = (q.point[j + 1] as number) + hit;
      q.point[j + 2] = (q.point[j + 2] as number) + d.confidence;
      if (weights === null || s.replicates === 0) return;
      const value = quantize(d.confidence);
      const base = b * s.replicates;
      for (let r = 0; r < s.replicates; r++) {
        const w = weights[r] as number;
        q.n[base + r] = (q.n[base + r] as number) + w;
        q.correct[base + r] = (q.correct[base + r] as number) + w * hit;
        q.confidence[base + r] = (q.confidence[base + r] as number) + w * value;
      }
    },
    merge(into: unknown, from: unknown): void {
      const s = into as PerQuestionState;
      for (const [key, other] of (from as PerQuestionState).questions) {
        const q = questionBins(s, key);
        other.point.forEach((v, i) => q.point[i] = (q.point[i] as number) + v);
        other.n.forEach((v, i) => q.n[i] = (q.n[i] as number) + v);
        other.correct.forEach((v, i) => q.correct[i] = (q.correct[i] as number) + v);
        other.confidence.forEach((v, i) => q.confidence[i] = (q.confidence[i] as number) + v);
      }
    },
    bytes(state: unknown): number {
      let bytes = 0;
      for (const q of (state as PerQuestionState).questions.values()) {
        bytes += q.point.byteLength + q.n.byteLength + q.correct.byteLength +
          q.confidence.byteLength + 16;
      }
      return bytes;
    },
  };
}

function questionBins(state: PerQuestionState, key: string): QuestionBins {
  let q = state.questions.get(key);
  if (q === undefined) {
    const size = state.bins * state.replicates;
    q = {
      point: new Float64Array(3 * state.bins),
      n: new Uint32Array(size),
      correct: new Uint32Array(size),
      confidence: new Float64Array(size),
    };
    state.questions.set(key, q);
  }
  return q;
}

/** The mean over questions of each question's ECE, in a replicate (−1: the point estimate). */
function perQuestionValue(state: PerQuestionState, replicate: number): number | null {
  const { bins, replicates } = state;
  let sum = 0;
  let count = 0;
  // Questions in key order: the same sum whatever order their decisions came in.
  const keys = [...state.questions.keys()].sort();
  for (const key of keys) {
    const q = state.questions.get(key) as QuestionBins;
    let total = 0;
    let gaps = 0;
    for (let b = 0; b < bins; b++) {
      if (replicate < 0) {
        total += q.point[3 * b] as number;
        gaps += Math.abs((q.point[3 * b + 1] as number) - (q.point[3 * b + 2] as number));
      } else {
        const i = b * replicates + replicate;
        total += q.n[i] as number;
        gaps += Math.abs((q.correct[i] as number) - (q.confidence[i] as number));
      }
    }
    if (total === 0) continue;
    sum += gaps / total;
    count++;
  }
  return count === 0 ? null : sum / count;
}

const TOP_LABEL = {
  over: "answered",
  higherIsBetter: false,
  range: [0, 1],
  format: "number",
} as const;

/** Totals per equal-width bin: count, correct, confidence sum (3·bins numbers). */
function widthTotals(bins: number): Pick<AdditiveMetric, "kind" | "width" | "add"> {
  return {
    kind: "additive",
    width: 3 * bins,
    add(totals: Float64Array, offset: number, d: MetricInput): void {
      if (d.confidence === null || d.confidence === undefined) return;
      const b = offset + widthBin(d.confidence, bins);
      addAt(totals, b, 1);
      if (d.correct) addAt(totals, b + bins, 1);
      addAt(totals, b + 2 * bins, d.confidence);
    },
  };
}

/** The non-empty bins held in additive totals. */
function binsOfTotals(totals: Float64Array, offset: number, bins: number): CalibrationBin[] {
  const out: CalibrationBin[] = [];
  for (let b = 0; b < bins; b++) {
    const n = totals[offset + b] as number;
    if (n === 0) continue;
    out.push({
      index: b,
      lower: b / bins,
      upper: (b + 1) / bins,
      n,
      correct: totals[offset + bins + b] as number,
      confidenceSum: totals[offset + 2 * bins + b] as number,
    });
  }
  return out;
}

/** `ece_15`: top-label ECE over 15 equal-width bins. */
export const ECE_15: AdditiveMetric = {
  name: "ece_15",
  label: "ECE (15-bin)",
  description:
    "Top-label ECE, 15 equal-width bins (min(⌊conf·15⌋, 14)), empty bins skipped, answered decisions",
  ...TOP_LABEL,
  ...widthTotals(15),
  value: (totals, offset) => eceOfBins(binsOfTotals(totals, offset, 15)),
};

/** `ece_em`: top-label ECE over 15 equal-mass bins (Nixon et al. 2019). */
export const ECE_EM: SampleMetric = {
  name: "ece_em",
  label: "ECE (15 equal-mass)",
  description:
    `Top-label ECE, 15 equal-mass bins by confidence rank with ties kept in one bin (Nixon et al. 2019), answered decisions; confidences ${CELLS_NOTE}`,
  ...TOP_LABEL,
  ...equalMassMetric(eceOfBins),
};

/** `ece_debiased`: Kumar, Liang & Ma 2019's debiased ℓ1 ECE over the `ece_em` bins. */
export const ECE_DEBIASED: SampleMetric = {
  name: "ece_debiased",
  label: "ECE (debiased)",
  description:
    `Debiased ℓ1 top-label ECE (Kumar, Liang & Ma 2019; normal expectation exact), the 15 equal-mass bins of ece_em, answered decisions; confidences ${CELLS_NOTE}`,
  ...TOP_LABEL,
  range: [-1, 1],
  ...equalMassMetric(debiasedEceOfBins),
};

/** `ece_per_question`: mean over questions of the 10-bin ECE within each question. */
export const ECE_PER_QUESTION: SampleMetric = {
  name: "ece_per_question",
  label: "ECE (per question)",
  description:
    "Unweighted mean over questions (each lane/question apart) of each question's 10-bin top-label ECE, answered decisions",
  ...TOP_LABEL,
  kind: "sample",
  sketch: perQuestionSketch(BIN_COUNT),
  value: (state, replicate) => perQuestionValue(state as PerQuestionState, replicate),
};

/** `mce`: the largest |accuracy − confidence| over the non-empty headline (10-bin) bins. */
export const MCE: AdditiveMetric = {
  name: "mce",
  label: "MCE",
  description:
    "Maximum calibration error: largest |accuracy − mean confidence| over non-empty 10 equal-width bins, answered decisions",
  ...TOP_LABEL,
  ...widthTotals(BIN_COUNT),
  // The headline ECE's totals: one set of sums in a bootstrap holding both.
  totalsOf: "ece",
  value: (totals, offset) => mceOfBins(binsOfTotals(totals, offset, BIN_COUNT)),
};

/** The calibration estimators, in report order. */
export const CALIBRATION_METRICS: readonly (AdditiveMetric | SampleMetric)[] = [
  ECE_15,
  ECE_EM,
  ECE_DEBIASED,
  ECE_PER_QUESTION,
  MCE,
];
