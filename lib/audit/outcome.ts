/**
 * Comparing a judge's answer with the deterministic verdict.
 *
 * @module
 */
import { type AuditOutcome, UNCLEAR } from "./schemas.ts";

/** Top probabilities closer than this count as tied. */
export const TIE_TOLERANCE = 1e-9;

/** A judged comparison. */
export interface Comparison {
  /** `agree`, `disagree` or `abstained`. */
  outcome: Exclude<AuditOutcome, "unavailable">;
  /** The judge's top option, or null when the top probabilities are tied. */
  choice: string | null;
}

/**
 * Compares a judge's distribution with the deterministic verdict. `unclear` on top, or two or
 * more options tied on top (within {@linkcode TIE_TOLERANCE}), is `abstained`; otherwise the top
 * option agrees or disagrees with the verdict. A disagreement is a review candidate, never a
 * corrected verdict.
 *
 * @param probabilities The judge's probability per option.
 * @param verdict The deterministic verdict (one of the options).
 * @returns The outcome and the judge's choice.
 * @throws {RangeError} When `probabilities` is empty.
 * @example
 * ```ts
 * import { compareWithVerdict } from "./outcome.ts";
 * compareWithVerdict({ claims: 0.8, no_claim: 0.15, unclear: 0.05 }, "no_claim");
 * // { outcome: "disagree", choice: "claims" }
 * compareWithVerdict({ claims: 0.4, no_claim: 0.4, unclear: 0.2 }, "claims");
 * // { outcome: "abstained", choice: null }
 * ```
 */
export function compareWithVerdict(
  probabilities: Readonly<Record<string, number>>,
  verdict: string,
): Comparison {
  const entries = Object.entries(probabilities);
  if (entries.length === 0) {
    throw new RangeError("Cannot compare with the verdict: the judge gave no probabilities");
  }
  const top = Math.max(...entries.map(([, p]) => p));
  const tops = entries.filter(([, p]) => top - p <= TIE_TOLERANCE).map(([name]) => name);
  if (tops.length > 1) return { outcome: "abstained", choice: null };
  const choice = tops[0] as string;
  if (choice === UNCLEAR) return { outcome: "abstained", choice };
  return { outcome: choice === verdict ? "agree" : "disagree", choice };
}
