/**
 * Scoring one decision: predicted answer and confidence, correctness, KL divergence and Brier
 * score, as docs/metrics.md defines them.
 *
 * @module
 */

/** The smallest predicted probability KL divides by, so a zero prediction costs a finite amount. */
export const KL_FLOOR = 1e-12;

/** A gold answer as scoring needs it. */
export interface GoldDistribution {
  /** The dataset's gold label: the answer accuracy is scored against. */
  label: string;
  /** The gold probability of each answer. */
  probabilities: Record<string, number>;
}

/** The score of one decision. */
export interface DecisionScore {
  /** The predicted answer (argmax, the option listed first wins a tie), or null on error. */
  answer: string | null;
  /** The predicted answer's probability, or null on error. */
  confidence: number | null;
  /** The predicted answer equals the gold label (false on error). */
  correct: boolean;
  /** KL(gold ‖ predicted) in nats, or null on error. */
  kl: number | null;
  /** Brier score (0 best, 2 worst), or null on error. */
  brier: number | null;
}

/**
 * The distribution of a yes/no (`noul`) answer, keyed in option order.
 *
 * @param p The probability of `true`.
 * @returns `{ true: p, false: 1 - p }`.
 * @throws {RangeError} When `p` is not a number in [0, 1].
 * @example
 * ```ts
 * import { normalizeNoul } from "./score.ts";
 * const d = normalizeNoul(0.75); // { true: 0.75, false: 0.25 }
 * if (d.false !== 0.25) throw new Error("1 - p");
 * ```
 */
export function normalizeNoul(p: number): { true: number; false: number } {
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`Cannot read a noul answer: probability "${p}" is not in [0, 1]`);
  }
  return { true: p, false: 1 - p };
}

/**
 * The predicted answer: the option with the highest probability, the one listed first on a tie.
 *
 * An option missing from `predicted` counts as probability 0.
 *
 * @param options The question's options in tie-break order (`optionsOf(question)`).
 * @param predicted The predicted probability of each option.
 * @returns The predicted answer and its probability.
 * @throws {RangeError} When `options` is empty or a probability is not a finite number.
 */
export function argmax(
  options: readonly string[],
  predicted: Readonly<Record<string, number>>,
): { answer: string; confidence: number } {
  if (options.length === 0) {
    throw new RangeError("Cannot pick an answer: the question has no options");
  }
  let answer = options[0] as string;
  let confidence = -Infinity;
  for (const option of options) {
    const p = probabilityOf(predicted, option);
    if (p > confidence) {
      answer = option;
      confidence = p;
    }
  }
  return { answer, confidence };
}

/**
 * KL(gold ‖ predicted) in nats: Σ over answers with gold > 0 of g·ln(g / max(p, 1e-12)).
 *
 * @param gold The gold probability of each answer.
 * @param predicted The predicted probability of each answer (missing → 0).
 * @returns The divergence in nats (0 when the distributions agree).
 * @throws {RangeError} When a probability is not a finite number.
 */
export function klDivergence(
  gold: Readonly<Record<string, number>>,
  predicted: Readonly<Record<string, number>>,
): number {
  let sum = 0;
  for (const key of Object.keys(gold)) {
    const g = probabilityOf(gold, key);
    if (g > 0) sum += g * Math.log(g / Math.max(probabilityOf(predicted, key), KL_FLOOR));
  }
  return sum;
}

/**
 * Brier score: Σ over the union of answers of (p − g)², missing answers counting 0.
 *
 * @param gold The gold probability of each answer.
 * @param predicted The predicted probability of each answer.
 * @returns The score, 0 best and 2 worst for two distributions.
 * @throws {RangeError} When a probability is not a finite number.
 */
export function brierScore(
  gold: Readonly<Record<string, number>>,
  predicted: Readonly<Record<string, number>>,
): number {
  let sum = 0;
  for (const key of new Set([...Object.keys(gold), ...Object.keys(predicted)])) {
    const d = probabilityOf(predicted, key) - probabilityOf(gold, key);
    sum += d * d;
  }
  return sum;
}

/**
 * Scores one decision against its gold answer.
 *
 * Takes three positional arguments (an exception to the two-argument rule) because all three are
 * required data of equal standing and callers already hold them separately.
 *
 * @param options The question's options in tie-break order (`optionsOf(question)`; noul is
 *   `["true", "false"]`, so 0.5 predicts `true`).
 * @param predicted The predicted distribution keyed by option, or null when the request failed.
 * @param gold The gold label and distribution.
 * @returns Answer, confidence, correctness, KL and Brier; on a failed request every score is null
 *   and `correct` is false (errors count as misses).
 * @throws {RangeError} When `options` is empty or a probability is not a finite number.
 * @example
 * ```ts
 * import { scoreDecision } from "./score.ts";
 * const s = scoreDecision(["true", "false"], { true: 0.5, false: 0.5 }, {
 *   label: "true",
 *   probabilities: { true: 1, false: 0 },
 * });
 * // answer "true" (tie → first), KL ln 2, Brier 0.5
 * if (s.answer !== "true" || s.brier !== 0.5) throw new Error("unexpected score");
 * ```
 */
export function scoreDecision(
  options: readonly string[],
  predicted: Readonly<Record<string, number>> | null,
  gold: GoldDistribution,
): DecisionScore {
  if (options.length === 0) {
    throw new RangeError("Cannot score a decision: the question has no options");
  }
  if (predicted === null) {
    return { answer: null, confidence: null, correct: false, kl: null, brier: null };
  }
  const { answer, confidence } = argmax(options, predicted);
  return {
    answer,
    confidence,
    correct: answer === gold.label,
    kl: klDivergence(gold.probabilities, predicted),
    brier: brierScore(gold.probabilities, predicted),
  };
}

function probabilityOf(distribution: Readonly<Record<string, number>>, key: string): number {
  if (!Object.hasOwn(distribution, key)) return 0;
  const p = distribution[key];
  if (typeof p !== "number" || !Number.isFinite(p)) {
    throw new RangeError(
      `Cannot score a decision: probability of "${key}" is "${p}", not a number`,
    );
  }
  return p;
}
