/**
 * Consistency checks of gold answers and question schemas. The train split has no published hash,
 * so these checks are what vouches for it; the vendor script runs them on both splits.
 *
 * @module
 */
import { optionsOf } from "./questions.ts";
import type { Case } from "./schemas.ts";

/** Tolerances of {@linkcode findGoldInconsistency}: gold values are rounded to six decimals. */
export const TOLERANCE = {
  /** Probabilities must sum to 1 within this. */
  sum: 1e-3,
  /** `noul` must equal P(true) within this. */
  noul: 1e-9,
  /** `score` (expected level) and choice `confidence` must match within this. */
  rounding: 1e-5,
} as const;

/** A number for a message: at most six decimals, like the dataset's own values. */
function show(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function goldProblem(c: Case, name: string): string | undefined {
  const question = c.questions[name];
  const gold = c.gold[name];
  if (!question || !gold) return `has no question or gold '${name}'`;
  const options = optionsOf(question);
  const p = options.map((option) => gold.probabilities[option] ?? 0);
  const sum = p.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > TOLERANCE.sum) {
    return `gold of '${name}' has probabilities summing to ${show(sum)}`;
  }
  const max = Math.max(...p);
  if ((gold.probabilities[gold.label] ?? -1) !== max) {
    return `gold of '${name}' has label '${gold.label}', which is not a most likely answer`;
  }
  if (
    gold.type === "noul" &&
    Math.abs((gold.noul ?? NaN) - (gold.probabilities.true ?? NaN)) > TOLERANCE.noul
  ) {
    return `gold of '${name}' has noul ${gold.noul} but P(true) ${gold.probabilities.true}`;
  }
  if (gold.type === "score") {
    const expected = p.reduce((acc, pi, i) => acc + i * pi, 0);
    if (!(Math.abs((gold.score ?? NaN) - expected) <= TOLERANCE.rounding)) {
      return `gold of '${name}' has score ${gold.score} but the expected level is ${
        show(expected)
      }`;
    }
  }
  if (gold.type === "choice") {
    const k = options.length;
    const confidence = (max - 1 / k) / (1 - 1 / k);
    if (!(Math.abs(gold.confidence - confidence) <= TOLERANCE.rounding)) {
      return `gold of '${name}' has confidence ${gold.confidence} but (p_max − 1/K)/(1 − 1/K) is ${
        show(confidence)
      }`;
    }
  }
  return undefined;
}

/**
 * Finds the first gold answer that is inconsistent: probabilities not summing to 1, a `label`
 * that is not a most likely answer, `noul` ≠ P(true), `score` ≠ the expected level, or a choice
 * `confidence` ≠ (p_max − 1/K)/(1 − 1/K).
 *
 * @param cases Cases that already passed the structural checks.
 * @returns A description naming the case and question, or undefined.
 */
export function findGoldInconsistency(cases: readonly Case[]): string | undefined {
  for (const c of cases) {
    for (const name of Object.keys(c.questions)) {
      const problem = goldProblem(c, name);
      if (problem) return `case '${c.id}' ${problem}`;
    }
  }
  return undefined;
}

/**
 * The question schema of each workflow, checking that every case of a workflow has the same one.
 *
 * @param cases Cases that already passed the structural checks.
 * @returns The schema per workflow as JSON text, or a problem naming the first case that differs.
 */
export function questionSchemas(
  cases: readonly Case[],
): { schemas: Map<string, string> } | { problem: string } {
  const schemas = new Map<string, string>();
  for (const c of cases) {
    const text = JSON.stringify(c.questions);
    const known = schemas.get(c.workflow);
    if (known === undefined) schemas.set(c.workflow, text);
    else if (known !== text) {
      return {
        problem: `case '${c.id}' has questions that differ from its workflow's other cases`,
      };
    }
  }
  return { schemas };
}
