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
  correct?: boolean | undefined;
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

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Mean over questions of a per-question value (questions with a null value left out). */
function perQuestion(
  decisions: readonly ScorerProfileInput[],
  value: (group: readonly ScorerProfileInput[]) => number | null,
): number | null {
  const values: number[] = [];
  for (const group of groupBy(decisions, questionKey).values()) {
    const v = value(group);
    if (v !== null) values.push(v);
  }
  return mean(values);
}

/**
 * The scorer profile of a run's decisions.
 *
 * @param decisions Scored decisions (a `DecisionRecord` has every field read).
 * @returns One row per metric and convention, decibench's headline convention first per metric.
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
export function scorerProfile(decisions: readonly ScorerProfileInput[]): ScorerProfileRow[] {
  const answered = decisions.filter(isAnswered);
  const accuracy = (group: readonly ScorerProfileInput[], tieAware: boolean) =>
    mean(group.map((d) => (tieAware ? correctTieAware(d) : d.correct && isAnswered(d)) ? 1 : 0));
  const kl = (group: readonly ScorerProfileInput[], floor: number) =>
    mean(
      group.filter((d) => d.predicted && d.gold_probabilities).map((d) =>
        klWithFloor(
          d.gold_probabilities as Record<string, number>,
          d.predicted as Record<string, number>,
          floor,
        )
      ),
    );
  const brier = (group: readonly ScorerProfileInput[]) =>
    mean(group.flatMap((d) => typeof d.brier === "number" ? [d.brier] : []));
  const ece = (group: readonly ScorerProfileInput[], bins: number) =>
    eceOfBins(calibrationBins(group, { bins }));
  const row = (
    metric: ScorerProfileRow["metric"],
    convention: string,
    value: number | null,
    decibench = false,
  ): ScorerProfileRow => ({ metric, convention, value, decibench });
  return [
    row("accuracy", "pooled, ties → dataset label", accuracy(decisions, false), true),
    row("accuracy", "pooled, ties → any top gold answer", accuracy(decisions, true)),
    row(
      "accuracy",
      "per question, ties → dataset label",
      perQuestion(decisions, (g) => accuracy(g, false)),
    ),
    row(
      "accuracy",
      "per question, ties → any top gold answer",
      perQuestion(decisions, (g) => accuracy(g, true)),
    ),
    row("kl", "pooled, floor 1e-12", kl(answered, 1e-12), true),
    row("kl", "pooled, floor 1e-9", kl(answered, 1e-9)),
    row("kl", "per question, floor 1e-12", perQuestion(answered, (g) => kl(g, 1e-12))),
    row("kl", "per question, floor 1e-9", perQuestion(answered, (g) => kl(g, 1e-9))),
    row("brier", "pooled", brier(answered), true),
    row("brier", "per question", perQuestion(answered, brier)),
    row("ece", "pooled, 10 bins", ece(answered, 10), true),
    row("ece", "pooled, 15 bins", ece(answered, 15)),
    row("ece", "per question, 10 bins", perQuestion(answered, (g) => ece(g, 10))),
    row("ece", "per question, 15 bins", perQuestion(answered, (g) => ece(g, 15))),
  ];
}
