/**
 * A decision scorer worked out once per question: the same answer, confidence, correctness, KL
 * and Brier as `scoreDecision`, to the last bit (the sums run over the answers in the same
 * order), without its per-call option lists, key lookups and sets. A workflow asks the same
 * questions of every case, so what depends only on a question's options is done once per
 * question set; what depends on the case's gold is read per call.
 *
 * @module
 */
import { type DecisionScore, type GoldDistribution, KL_FLOOR } from "./score.ts";

/** Scores one decision from the predicted probability of each option, in option order. */
export type QuestionScorer = (
  predicted: ArrayLike<number>,
  gold: GoldDistribution,
) => DecisionScore;

/**
 * The scorer of a question with these options.
 *
 * @param options The question's options in tie-break order (`optionsOf(question)`).
 * @returns A function of the predicted probabilities in option order (an option missing from the
 *   prediction is 0) and the gold answer, giving exactly `scoreDecision(options, predicted, gold)`.
 * @throws {RangeError} When `options` is empty; the scorer throws one when a gold probability is
 *   not a finite number.
 * @example
 * ```ts
 * import { questionScorer } from "./scorer.ts";
 * import { scoreDecision } from "./score.ts";
 * const gold = { label: "no", probabilities: { no: 0.6, yes: 0.4 } };
 * const a = questionScorer(["yes", "no"])([0.3, 0.7], gold);
 * const b = scoreDecision(["yes", "no"], { yes: 0.3, no: 0.7 }, gold);
 * if (a.kl !== b.kl || a.brier !== b.brier || a.answer !== "no") throw new Error("differs");
 * ```
 */
export function questionScorer(options: readonly string[]): QuestionScorer {
  if (options.length === 0) {
    throw new RangeError("Cannot score a decision: the question has no options");
  }
  // The predicted object's key order (integer-like keys first, as objects order them): Brier's
  // sum visits the options gold lacks in this order, after the gold keys.
  const predictedKeys = Object.keys(Object.fromEntries(options.map((o) => [o, 0])));
  const predictedAt = predictedKeys.map((k) => options.indexOf(k));
  // The first index of each option, as `options.indexOf` gives it.
  const indexOf = new Map<string, number>();
  options.forEach((o, i) => {
    if (!indexOf.has(o)) indexOf.set(o, i);
  });
  return (predicted, gold) => {
    let best = 0;
    let confidence = -Infinity;
    for (let i = 0; i < options.length; i++) {
      const p = predicted[i] ?? 0;
      if (p > confidence) {
        best = i;
        confidence = p;
      }
    }
    const probabilities = gold.probabilities;
    let kl = 0;
    let brier = 0;
    const keys = Object.keys(probabilities);
    for (let j = 0; j < keys.length; j++) {
      const key = keys[j] as string;
      const g = probabilities[key];
      if (typeof g !== "number" || !Number.isFinite(g)) {
        throw new RangeError(
          `Cannot score a decision: probability of "${key}" is "${g}", not a number`,
        );
      }
      const at = indexOf.get(key);
      const p = at === undefined ? 0 : predicted[at] ?? 0;
      if (g > 0) kl += g * Math.log(g / Math.max(p, KL_FLOOR));
      const d = p - g;
      brier += d * d;
    }
    for (let j = 0; j < predictedKeys.length; j++) {
      if (Object.hasOwn(probabilities, predictedKeys[j] as string)) continue;
      const d = (predicted[predictedAt[j] as number] ?? 0) - 0;
      brier += d * d;
    }
    const answer = options[best] as string;
    return { answer, confidence, correct: answer === gold.label, kl, brier };
  };
}
