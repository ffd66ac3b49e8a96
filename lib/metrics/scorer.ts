/**
 * A decision scorer compiled once per question and gold answer: the same answer, confidence,
 * correctness, KL and Brier as `scoreDecision`, to the last bit (the sums run over the answers in
 * the same order), without its per-call key lookups and allocations. A benchmark scores the same
 * 2,000 questions of the same cases again and again, so the work that depends only on the
 * question and its gold is done once.
 *
 * @module
 */
import { type DecisionScore, type GoldDistribution, KL_FLOOR } from "./score.ts";

/** Scores one decision from the predicted probability of each option, in option order. */
export type CompiledScorer = (predicted: ArrayLike<number>) => DecisionScore;

/**
 * Compiles the scorer of one question against its gold answer.
 *
 * @param options The question's options in tie-break order (`optionsOf(question)`).
 * @param gold The gold label and distribution.
 * @returns A function of the predicted probabilities in option order (an option missing from
 *   the prediction is 0) giving exactly `scoreDecision(options, predicted, gold)`.
 * @throws {RangeError} When `options` is empty or a gold probability is not a finite number.
 * @example
 * ```ts
 * import { compileScorer } from "./scorer.ts";
 * import { scoreDecision } from "./score.ts";
 * const gold = { label: "no", probabilities: { no: 0.6, yes: 0.4 } };
 * const score = compileScorer(["yes", "no"], gold);
 * const a = score([0.3, 0.7]);
 * const b = scoreDecision(["yes", "no"], { yes: 0.3, no: 0.7 }, gold);
 * if (a.kl !== b.kl || a.brier !== b.brier || a.answer !== "no") throw new Error("differs");
 * ```
 */
export function compileScorer(options: readonly string[], gold: GoldDistribution): CompiledScorer {
  if (options.length === 0) {
    throw new RangeError("Cannot score a decision: the question has no options");
  }
  // scoreDecision's sums: KL over the gold keys in their order; Brier over the union, gold keys
  // first, then the predicted options gold lacks. Each term reads the option's index (or -1).
  const index = new Map(options.map((o, i) => [o, i] as const));
  const goldKeys = Object.keys(gold.probabilities);
  const goldValues = goldKeys.map((k) => {
    const g = gold.probabilities[k];
    if (typeof g !== "number" || !Number.isFinite(g)) {
      throw new RangeError(
        `Cannot score a decision: probability of "${k}" is "${g}", not a number`,
      );
    }
    return g;
  });
  const goldAt = goldKeys.map((k) => index.get(k) ?? -1);
  const inGold = new Set(goldKeys);
  // In the key order of the predicted object (integer-like keys first, as objects order them).
  const predictedKeys = Object.keys(Object.fromEntries(options.map((o) => [o, 0])));
  const extra = predictedKeys.filter((k) => !inGold.has(k)).map((k) => index.get(k) as number);
  const label = gold.label;
  return (predicted) => {
    let best = 0;
    let confidence = -Infinity;
    for (let i = 0; i < options.length; i++) {
      const p = predicted[i] ?? 0;
      if (p > confidence) {
        best = i;
        confidence = p;
      }
    }
    let kl = 0;
    let brier = 0;
    for (let j = 0; j < goldKeys.length; j++) {
      const g = goldValues[j] as number;
      const at = goldAt[j] as number;
      const p = at < 0 ? 0 : predicted[at] ?? 0;
      if (g > 0) kl += g * Math.log(g / Math.max(p, KL_FLOOR));
      const d = p - g;
      brier += d * d;
    }
    for (const at of extra) {
      const d = (predicted[at] ?? 0) - 0;
      brier += d * d;
    }
    const answer = options[best] as string;
    return { answer, confidence, correct: answer === label, kl, brier };
  };
}
