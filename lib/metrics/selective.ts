/**
 * Selective prediction: the risk–coverage curve (answer only the most confident share of
 * decisions) with its area `aurc` and the accuracy at 50 % and 80 % coverage (`acc_at_50`,
 * `acc_at_80`), the figures a user deciding "auto-route above p" needs.
 *
 * Estimator (Geifman & El-Yaniv's risk–coverage curve, discrete form): the N answered decisions
 * are ranked by top-label confidence, most confident first. Keeping the top k gives coverage k/N
 * and risk = wrong decisions among them / k. Decisions of equal confidence cannot be told apart by
 * a threshold, so within a run of m tied decisions with e wrong ones, the wrong count grows
 * linearly (e/m per decision): the expected risk under a random order of the ties, independent of
 * input order. AURC = (1/N)·Σ_{k=1..N} risk(k) (0 best; a model whose confidence ranks nothing
 * scores about its error rate). Accuracy at coverage c is 1 − risk(⌈c·N⌉).
 * Errors (unanswered decisions) are left out: coverage is of answered decisions.
 *
 * Bounded summary: the runs of tied confidences are the cells of a histogram (`_cells.ts`) of at
 * most `SKETCH_CELLS` cells, exact up to that many distinct confidences; past it, confidences
 * sharing a dyadic grid cell are treated as tied.
 *
 * @module
 */
import { CELLS_NOTE, SKETCH_CELLS } from "./_cells.ts";
import type { SampleMetric } from "./registry.ts";
import {
  TIES_SKETCH,
  tiesOf,
  tiesOfList,
  type TiesState,
  type WeightedTies,
} from "./_confidence.ts";

/** The fields the curve reads from a decision. */
export interface SelectiveInput {
  /** Top-label confidence; null or absent (not answered) leaves the decision out. */
  confidence?: number | null | undefined;
  /** The predicted answer equals the gold label. */
  correct?: boolean | null | undefined;
}

/** One point of the risk–coverage curve: the k most confident decisions kept. */
export interface RiskCoveragePoint {
  /** Decisions kept (k). */
  kept: number;
  /** k / N. */
  coverage: number;
  /** Expected wrong share among the kept decisions (ties spread evenly). */
  risk: number;
  /** The confidence of the k-th decision: keeping decisions at or above it covers this much. */
  threshold: number;
}

/**
 * The risk–coverage curve of answered decisions, one point per k = 1 … N.
 *
 * @param decisions Decisions; those without a confidence are left out.
 * @returns The points, coverage ascending (empty when nothing is answered).
 * @example
 * ```ts
 * import { riskCoverage } from "./selective.ts";
 * const curve = riskCoverage([
 *   { confidence: 0.9, correct: true },
 *   { confidence: 0.6, correct: false },
 * ]);
 * // keep the 0.9 one: risk 0; keep both: risk 1/2
 * if (curve[0]!.risk !== 0 || curve[1]!.risk !== 0.5) throw new Error("risk");
 * ```
 */
export function riskCoverage(decisions: readonly SelectiveInput[]): RiskCoveragePoint[] {
  const ties = tiesOf(tiesOfList(decisions, SKETCH_CELLS), -1);
  const out: RiskCoveragePoint[] = [];
  walkCurve(ties, (k, risk, threshold) => {
    out.push({ kept: k, coverage: k / ties.total, risk, threshold });
  });
  return out;
}

/**
 * Visits the curve most confident first: k (1…N), the risk of the top k, and the confidence of
 * the k-th decision (weighted runs: a decision of weight w counts w times).
 */
function walkCurve(
  ties: WeightedTies,
  visit: (k: number, risk: number, threshold: number) => void,
): void {
  let start = 0;
  let before = 0;
  for (let t = ties.values.length - 1; t >= 0; t--) {
    const size = ties.n[t] as number;
    if (size === 0) continue;
    const wrong = size - (ties.correct[t] as number);
    for (let k = start + 1; k <= start + size; k++) {
      visit(k, (before + wrong * (k - start) / size) / k, ties.values[t] as number);
    }
    before += wrong;
    start += size;
  }
}

/** Harmonic numbers H(0…4096); larger ones by their asymptotic expansion. */
const HARMONIC = (() => {
  const h = new Float64Array(4097);
  for (let k = 1; k < h.length; k++) h[k] = (h[k - 1] as number) + 1 / k;
  return h;
})();

/** H(n) for n beyond the table: ln n + γ + 1/2n − 1/12n² + 1/120n⁴ (error below 1e-16 relative). */
function harmonicTail(n: number): number {
  const inv = 1 / n;
  const inv2 = inv * inv;
  return Math.log(n) + 0.5772156649015329 + inv / 2 - inv2 / 12 + (inv2 * inv2) / 120;
}

/** H(b) − H(a) for whole numbers 0 ≤ a ≤ b, from the table or the expansion. */
function harmonicDiff(a: number, b: number): number {
  if (b < HARMONIC.length) return (HARMONIC[b] as number) - (HARMONIC[a] as number);
  if (a < HARMONIC.length) return harmonicTail(b) - (HARMONIC[a] as number);
  const ia = 1 / a;
  const ib = 1 / b;
  return Math.log1p((b - a) / a) + (ib - ia) / 2 - (ib * ib - ia * ia) / 12 +
    (ib ** 4 - ia ** 4) / 120;
}

/**
 * AURC of weighted runs in one pass over the runs: a run of m decisions (e wrong) after s kept
 * ones with b wrong adds Σ_{k=s+1…s+m} (b + e·(k − s)/m)/k = b·ΔH + (e/m)·(m − s·ΔH), with
 * ΔH = H(s+m) − H(s) from a table of harmonic numbers.
 */
function aurcOfTies(ties: WeightedTies): number | null {
  if (ties.total === 0) return null;
  let sum = 0;
  let start = 0;
  let before = 0;
  for (let t = ties.values.length - 1; t >= 0; t--) {
    const size = ties.n[t] as number;
    if (size === 0) continue;
    const wrong = size - (ties.correct[t] as number);
    const dh = harmonicDiff(start, start + size);
    sum += before * dh + (wrong / size) * (size - start * dh);
    before += wrong;
    start += size;
  }
  return sum / ties.total;
}

/** Accuracy of the top ⌈coverage·N⌉ of weighted runs. */
function accuracyOfTies(ties: WeightedTies, coverage: number): number | null {
  if (ties.total === 0) return null;
  const k = keptAt(ties.total, coverage);
  let start = 0;
  let before = 0;
  for (let t = ties.values.length - 1; t >= 0; t--) {
    const size = ties.n[t] as number;
    if (size === 0) continue;
    const wrong = size - (ties.correct[t] as number);
    if (k <= start + size) return 1 - (before + wrong * (k - start) / size) / k;
    before += wrong;
    start += size;
  }
  return 1 - before / ties.total;
}

/** A selective metric from the tie runs. */
function fromTies(
  estimate: (ties: WeightedTies) => number | null,
): Pick<SampleMetric, "sketch" | "value"> {
  return {
    sketch: TIES_SKETCH,
    value: (state, replicate) => estimate(tiesOf(state as TiesState, replicate)),
  };
}

/**
 * The area under a risk–coverage curve: the mean risk over k = 1 … N.
 *
 * @param curve The curve from {@linkcode riskCoverage}.
 * @returns AURC, or null for an empty curve.
 */
export function aurcOf(curve: readonly RiskCoveragePoint[]): number | null {
  if (curve.length === 0) return null;
  let sum = 0;
  for (const point of curve) sum += point.risk;
  return sum / curve.length;
}

/**
 * The accuracy of the most confident share of decisions: 1 − risk at k = ⌈coverage·N⌉ (at least
 * one decision).
 *
 * @param curve The curve from {@linkcode riskCoverage}.
 * @param coverage The share kept, in (0, 1].
 * @returns The accuracy, or null for an empty curve.
 * @throws {RangeError} When `coverage` is not in (0, 1].
 */
export function accuracyAtCoverage(
  curve: readonly RiskCoveragePoint[],
  coverage: number,
): number | null {
  if (!(coverage > 0 && coverage <= 1)) {
    throw new RangeError(
      `Cannot read the risk–coverage curve: coverage "${coverage}" is not in (0, 1]`,
    );
  }
  if (curve.length === 0) return null;
  // k/N products like 0.8·2000 are not exact: take the nearest integer when within 1e-9.
  const exact = coverage * curve.length;
  const k = Math.max(
    1,
    Math.abs(exact - Math.round(exact)) < 1e-9 ? Math.round(exact) : Math.ceil(exact),
  );
  return 1 - (curve[k - 1] as RiskCoveragePoint).risk;
}

/** One row of {@linkcode coverageThresholds}: answer only at or above a confidence. */
export interface CoverageThreshold {
  /** The share of decisions asked for. */
  target: number;
  /** Answer when the confidence is at least this (the ⌈target·N⌉-th highest confidence). */
  threshold: number;
  /** Decisions at or above the threshold (a tie at the threshold is kept whole). */
  kept: number;
  /** kept / N. */
  coverage: number;
  /** Accuracy of the kept decisions. */
  accuracy: number;
}

/**
 * Confidence thresholds for target coverages: for each target c, the confidence of the
 * ⌈c·N⌉-th most confident answered decision, and the exact coverage and accuracy of answering
 * only at or above it ("auto-route above p").
 *
 * @param curve The curve from {@linkcode riskCoverage}.
 * @param targets Target coverages in (0, 1].
 * @returns One row per target, in the order given (none for an empty curve).
 * @throws {RangeError} When a target is not in (0, 1].
 */
export function coverageThresholds(
  curve: readonly RiskCoveragePoint[],
  targets: readonly number[],
): CoverageThreshold[] {
  if (curve.length === 0) return [];
  return targets.map((target) => {
    if (!(target > 0 && target <= 1)) {
      throw new RangeError(
        `Cannot read the risk–coverage curve: coverage "${target}" is not in (0, 1]`,
      );
    }
    const threshold = (curve[keptAt(curve.length, target) - 1] as RiskCoveragePoint).threshold;
    let last = 0;
    while (last < curve.length && (curve[last] as RiskCoveragePoint).threshold >= threshold) last++;
    const point = curve[last - 1] as RiskCoveragePoint;
    return { target, threshold, kept: last, coverage: point.coverage, accuracy: 1 - point.risk };
  });
}

/** ⌈c·N⌉, at least 1, an exact product like 0.8·2000 not rounded up by float error. */
function keptAt(n: number, coverage: number): number {
  const exact = coverage * n;
  const near = Math.round(exact);
  return Math.max(1, Math.abs(exact - near) < 1e-9 ? near : Math.ceil(exact));
}

const SELECTIVE = {
  over: "answered",
  range: [0, 1],
  kind: "sample",
} as const;

/** `aurc`: area under the risk–coverage curve. */
export const AURC: SampleMetric = {
  name: "aurc",
  label: "AURC",
  description:
    `Area under the risk–coverage curve (decisions ranked by confidence, ties spread evenly), mean risk over k = 1…N, answered decisions; confidences ${CELLS_NOTE}`,
  ...SELECTIVE,
  higherIsBetter: false,
  format: "number",
  ...fromTies(aurcOfTies),
};

function accuracyAt(percent: number): SampleMetric {
  return {
    name: `acc_at_${percent}`,
    label: `Accuracy @${percent}% coverage`,
    description:
      `Accuracy of the ${percent}% most confident answered decisions (⌈${percent}%·N⌉ kept, ties spread evenly); confidences ${CELLS_NOTE}`,
    ...SELECTIVE,
    higherIsBetter: true,
    format: "percent",
    ...fromTies((ties) => accuracyOfTies(ties, percent / 100)),
  };
}

/** `acc_at_50`: accuracy of the most confident half of the answered decisions. */
export const ACC_AT_50: SampleMetric = accuracyAt(50);
/** `acc_at_80`: accuracy of the most confident 80 % of the answered decisions. */
export const ACC_AT_80: SampleMetric = accuracyAt(80);

/** The selective-prediction metrics, in report order. */
export const SELECTIVE_METRICS: readonly SampleMetric[] = [AURC, ACC_AT_50, ACC_AT_80];
