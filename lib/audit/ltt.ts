/**
 * Learn then Test (Angelopoulos, Bates, Candès, Jordan & Lei 2021, "Learn then Test: Calibrating
 * Predictive Algorithms to Achieve Risk Control"), for a rate that a bar keeps below α: each
 * candidate bar j is the null hypothesis "its rate > α", tested with the exact binomial p-value
 * P(X ≤ k_j), X ~ Binomial(n_j, α), for k_j events in n_j trials; the bars are tested in a fixed
 * order (strict to loose), each at level δ, stopping at the first that is not rejected. The last
 * rejected bar is chosen; the family-wise error is at most δ, so P(rate of the chosen bar ≤ α) ≥
 * 1 − δ over the labelled sample.
 *
 * @module
 */
import { binomialCdf, clopperPearsonUpper } from "./binomial.ts";

/** One candidate bar's count on the selection part. */
export interface LttCandidate {
  /** Events at this bar (false passes, wrong answers). */
  events: number;
  /** Trials they are counted among (gold "no" cases, answered cases). */
  trials: number;
}

/**
 * The exact binomial p-value of "the rate > α" after `events` in `trials`: P(X ≤ events) for
 * X ~ Binomial(trials, α); 1 without trials.
 *
 * @param events Events seen.
 * @param trials Trials.
 * @param alpha The rate tested.
 * @returns The p-value.
 * @example
 * ```ts
 * import { binomialPValue } from "./ltt.ts";
 * binomialPValue(0, 59, 0.05) < 0.05; // true: 0.95^59 ≈ 0.0485
 * ```
 */
export function binomialPValue(events: number, trials: number, alpha: number): number {
  if (trials === 0) return 1;
  return binomialCdf(events, trials, alpha);
}

/**
 * Learn then Test with fixed-sequence testing: the index of the last candidate rejected when the
 * candidates are tested in the order given, each at level δ, stopping at the first not rejected.
 *
 * @param candidates Counts per candidate bar, strict to loose.
 * @param alpha The rate to keep below, in (0, 1).
 * @param delta The level, in (0, 1).
 * @returns The index of the chosen candidate, or null when the first is not rejected.
 * @example
 * ```ts
 * import { learnThenTest } from "./ltt.ts";
 * learnThenTest([{ events: 0, trials: 100 }, { events: 2, trials: 100 }, { events: 9, trials: 100 }], 0.1, 0.05); // 1
 * ```
 */
export function learnThenTest(
  candidates: readonly LttCandidate[],
  alpha: number,
  delta: number,
): number | null {
  let chosen: number | null = null;
  for (let j = 0; j < candidates.length; j++) {
    const c = candidates[j] as LttCandidate;
    if (binomialPValue(c.events, c.trials, alpha) > delta) break;
    chosen = j;
  }
  return chosen;
}

/**
 * The fewest trials that can certify a bar at all: the smallest n with (1 − α)^n ≤ δ (zero
 * events), e.g. 59 at α = δ = 0.05.
 *
 * @param alpha The rate, in (0, 1).
 * @param delta The level, in (0, 1).
 * @returns n.
 * @example
 * ```ts
 * import { neededTrials } from "./ltt.ts";
 * neededTrials(0.05, 0.05); // 59
 * ```
 */
export function neededTrials(alpha: number, delta: number): number {
  let n = Math.max(1, Math.floor(Math.log(delta) / Math.log1p(-alpha)) - 1);
  while (Math.pow(1 - alpha, n) > delta) n++;
  return n;
}

/**
 * The one-sided exact (Clopper–Pearson) lower confidence bound on a rate: 1 − the upper bound of
 * the complementary rate.
 *
 * @param k Events.
 * @param n Trials.
 * @param confidence One-sided confidence level.
 * @returns The bound in [0, 1], or null when n = 0.
 * @throws {RangeError} When the counts or the confidence are out of range.
 * @example
 * ```ts
 * import { clopperPearsonLower } from "./ltt.ts";
 * clopperPearsonLower(0, 10); // 0
 * ```
 */
export function clopperPearsonLower(k: number, n: number, confidence = 0.95): number | null {
  const upper = clopperPearsonUpper(n - k, n, { confidence });
  return upper === null ? null : Math.max(0, 1 - upper);
}
