/**
 * The scorer profile: the four card metrics (accuracy, KL, Brier, ECE) computed under each
 * convention Typed Decisions submitters use, side by side, so a user can see which convention a
 * published number used. decibench's own headline convention is marked.
 *
 * Conventions (every row over the same decisions; accuracy over all of them with errors as
 * misses, the others over answered decisions):
 * - pooled: one mean (or one binning) over all decisions; per question: the metric within each
 *   question (`workflow/question`), then the unweighted mean over questions.
 * - accuracy ties: the dataset's label (decibench), or any answer tied for the top gold
 *   probability counts as right (the card's tie-aware scorers).
 * - KL floor: predicted probabilities are floored at 1e-12 (decibench) or 1e-9 before dividing.
 * - ECE: top-label, 10 (decibench) or 15 equal-width bins.
 *
 * @module
 */
import { calibrationBins, eceOfBins } from "./calibration.ts";
import { groupBy, probabilityOf, questionKey, topOf } from "./_distribution.ts";
import { isAnswered } from "./_answered.ts";

/** The fields the scorer profile reads from a decision (a `DecisionRecord` has them all). */
export interface ScorerProfileInput {
  /** Workflow of the case. */
  workflow?: string | undefined;
  /** Question name. */
  question?: string | undefined;
  /** The predicted answer equals the gold label (false on error). */
  correct?: boolean | null | undefined;
  /** The predicted answer's probability, null when not answered. */
  confidence?: number | null | undefined;
  /** Brier score, null when not answered. */
  brier?: number | null | undefined;
  /** The predicted distribution keyed in option order, null when not answered. */
  predicted?: Readonly<Record<string, number>> | null | undefined;
  /** The gold distribution; null or absent: unlabelled. */
  gold_probabilities?: Readonly<Record<string, number>> | null | undefined;
  /** The failure, or null (or absent) when the decision was answered. */
  error?: unknown;
}

/** One convention of one card metric. */
export interface ScorerProfileRow {
  /** The card metric. */
  metric: "accuracy" | "kl" | "brier" | "ece";
  /** How it is computed, e.g. `pooled, floor 1e-9`. */
  convention: string;
  /** The value, null when n/a. */
  value: number | null;
  /** True for the convention decibench's headline figure uses. */
  decibench: boolean;
}

/** KL(gold ‖ predicted) with a floor on the predicted probability. */
function klWithFloor(
  gold: Readonly<Record<string, number>>,
  predicted: Readonly<Record<string, number>>,
  floor: number,
): number {
  let sum = 0;
  for (const key of Object.keys(gold)) {
    const g = gold[key] as number;
    if (g > 0) sum += g * Math.log(g / Math.max(probabilityOf(predicted, key), floor));
  }
  return sum;
}

/** Correct when the predicted answer has the top gold probability (tied gold answers all count). */
function correctTieAware(d: ScorerProfileInput): boolean {
  if (!isAnswered(d) || !d.predicted || !d.gold_probabilities) return false;
  const top = topOf(d.predicted);
  if (top === null) return false;
  const best = Math.max(...Object.values(d.gold_probabilities));
  return probabilityOf(d.gold_probabilities, top.key) >= best;
}

/**
 * The scorer profile of a run's decisions.
 *
 * @param given Scored decisions (a `DecisionRecord` has every field read).
 * @returns One row per metric and convention, decibench's headline convention first per metric
 *   (decisions without gold left out).
 * @example
 * ```ts
 * import { scorerProfile } from "./scorer_profile.ts";
 * const rows = scorerProfile([{
 *   workflow: "w",
 *   question: "q",
 *   correct: true,
 *   confidence: 0.9,
 *   brier: 0.02,
 *   predicted: { true: 0.9, false: 0.1 },
 *   gold_probabilities: { true: 1, false: 0 },
 *   error: null,
 * }]);
 * if (rows.find((r) => r.metric === "accuracy" && r.decibench)?.value !== 1) throw new Error();
 * ```
 */
export function scorerProfile(given: readonly ScorerProfileInput[]): ScorerProfileRow[] {
  // Unlabelled decisions (no gold) are in no convention: neither right nor wrong.
  const decisions = given.filter((d) => d.gold_probabilities !== null && d.correct !== null);
  // Each decision's figures, computed once for every convention that reads them; the means add
  // them in the same order as one pass per convention would.
  const n = decisions.length;
  const right = new Float64Array(n);
  const tieRight = new Float64Array(n);
  const scored = new Uint8Array(n);
  const kl12 = new Float64Array(n);
  const kl9 = new Float64Array(n);
  const hasBrier = new Uint8Array(n);
  const brier = new Float64Array(n);
  const all: number[] = [];
  const answered: number[] = [];
  decisions.forEach((d, i) => {
    all.push(i);
    const ok = isAnswered(d);
    right[i] = d.correct && ok ? 1 : 0;
    tieRight[i] = correctTieAware(d) ? 1 : 0;
    if (!ok) return;
    answered.push(i);
    if (d.predicted && d.gold_probabilities) {
      scored[i] = 1;
      kl12[i] = klWithFloor(d.gold_probabilities, d.predicted, 1e-12);
      kl9[i] = klWithFloor(d.gold_probabilities, d.predicted, 1e-9);
    }
    if (typeof d.brier === "number") {
      hasBrier[i] = 1;
      brier[i] = d.brier;
    }
  });
  const byQuestion = (indices: readonly number[]) =>
    groupBy(indices, (i) => questionKey(decisions[i] as ScorerProfileInput));
  const allGroups = [...byQuestion(all).values()];
  const answeredGroups = [...byQuestion(answered).values()];
  const mean = (indices: readonly number[], value: Float64Array, has?: Uint8Array) => {
    let sum = 0;
    let count = 0;
    for (const i of indices) {
      if (has && !has[i]) continue;
      sum += value[i] as number;
      count++;
    }
    return count === 0 ? null : sum / count;
  };
  const perQuestion = (
    groups: readonly (readonly number[])[],
    value: (group: readonly number[]) => number | null,
  ) => {
    let sum = 0;
    let count = 0;
    for (const group of groups) {
      const v = value(group);
      if (v === null) continue;
      sum += v;
      count++;
    }
    return count === 0 ? null : sum / count;
  };
  const ece = (group: readonly number[], bins: number) =>
    eceOfBins(calibrationBins(group.map((i) => decisions[i] as ScorerProfileInput), { bins }));
  const row = (
    metric: ScorerProfileRow["metric"],
    convention: string,
    value: number | null,
    decibench = false,
  ): ScorerProfileRow => ({ metric, convention, value, decibench });
  return [
    row("accuracy", "pooled, ties → dataset label", mean(all, right), true),
    row("accuracy", "pooled, ties → any top gold answer", mean(all, tieRight)),
    row(
      "accuracy",
      "per question, ties → dataset label",
      perQuestion(allGroups, (g) => mean(g, right)),
    ),
    row(
      "accuracy",
      "per question, ties → any top gold answer",
      perQuestion(allGroups, (g) => mean(g, tieRight)),
    ),
    row("kl", "pooled, floor 1e-12", mean(answered, kl12, scored), true),
    row("kl", "pooled, floor 1e-9", mean(answered, kl9, scored)),
    row(
      "kl",
      "per question, floor 1e-12",
      perQuestion(answeredGroups, (g) => mean(g, kl12, scored)),
    ),
    row("kl", "per question, floor 1e-9", perQuestion(answeredGroups, (g) => mean(g, kl9, scored))),
    row("brier", "pooled", mean(answered, brier, hasBrier), true),
    row("brier", "per question", perQuestion(answeredGroups, (g) => mean(g, brier, hasBrier))),
    row("ece", "pooled, 10 bins", ece(answered, 10), true),
    row("ece", "pooled, 15 bins", ece(answered, 15)),
    row("ece", "per question, 10 bins", perQuestion(answeredGroups, (g) => ece(g, 10))),
    row("ece", "per question, 15 bins", perQuestion(answeredGroups, (g) => ece(g, 15))),
  ];
}
