/**
 * Exact binomial bounds (Clopper–Pearson), for false-pass rates measured on few negatives.
 *
 * @module
 */

/**
 * P(X ≤ k) for X ~ Binomial(n, p), summed term by term in log space.
 *
 * @param k Largest count included (integer).
 * @param n Trials (integer ≥ 0).
 * @param p Success probability in [0, 1].
 * @returns The cumulative probability.
 * @throws {RangeError} When an argument is out of range.
 * @example
 * ```ts
 * import { binomialCdf } from "./binomial.ts";
 * binomialCdf(0, 2, 0.5); // 0.25
 * ```
 */
export function binomialCdf(k: number, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`Cannot compute a binomial CDF: n "${n}" is not a non-negative integer`);
  }
  if (!(p >= 0 && p <= 1)) {
    throw new RangeError(`Cannot compute a binomial CDF: p "${p}" is not in [0, 1]`);
  }
  if (!Number.isInteger(k)) {
    throw new RangeError(`Cannot compute a binomial CDF: k "${k}" is not an integer`);
  }
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p === 0) return 1;
  if (p === 1) return 0;
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logChoose = 0; // log C(n, 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logChoose += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(logChoose + i * logP + (n - i) * logQ);
  }
  return Math.min(1, sum);
}

/** Options of {@linkcode clopperPearsonUpper}. */
export interface ClopperPearsonOptions {
  /** One-sided confidence level. @default 0.95 */
  confidence?: number | undefined;
}

/**
 * The one-sided exact (Clopper–Pearson) upper confidence bound on a rate after `k` events in `n`
 * trials: the p at which P(X ≤ k) = 1 − confidence, found by bisection (k = n gives 1; k = 0 gives
 * 1 − (1 − confidence)^(1/n)).
 *
 * @param k Events seen (e.g. false passes).
 * @param n Trials (e.g. fail-labelled items).
 * @param options Confidence level.
 * @returns The upper bound in [0, 1], or null when n = 0 (nothing measured).
 * @throws {RangeError} When k or n is not an integer with 0 ≤ k ≤ n, or the confidence is not in (0, 1).
 * @example
 * ```ts
 * import { clopperPearsonUpper } from "./binomial.ts";
 * clopperPearsonUpper(0, 53); // ≈ 0.0549: no false pass in 53 negatives still allows 5.5%
 * ```
 */
export function clopperPearsonUpper(
  k: number,
  n: number,
  options: ClopperPearsonOptions = {},
): number | null {
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`Cannot bound the rate: confidence "${confidence}" is not in (0, 1)`);
  }
  if (!Number.isInteger(n) || !Number.isInteger(k) || k < 0 || k > n) {
    throw new RangeError(`Cannot bound the rate: "${k}" events in "${n}" trials is not a count`);
  }
  if (n === 0) return null;
  if (k === n) return 1;
  const alpha = 1 - confidence;
  let lo = k / n;
  let hi = 1;
  for (let i = 0; i < 200 && hi - lo > 1e-15; i++) {
    const mid = (lo + hi) / 2;
    if (binomialCdf(k, n, mid) > alpha) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
