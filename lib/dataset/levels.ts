/**
 * How an answer of a score question is shown: its level index with the level's own text, so a
 * reader sees `1 — Low: an inconvenience…` rather than a bare `1`.
 *
 * @module
 */

/** A question as far as its levels go (a wire question or a user question definition). */
export interface LevelsOf {
  /** The question type; only `score` has levels. */
  type: string;
  /** A score question's level texts, level 0 first. */
  criteria?: unknown;
}

/** Options of {@linkcode levelText}. */
export interface LevelTextOptions {
  /**
   * Characters of the level's text kept before an ellipsis.
   * @default 48
   */
  max?: number | undefined;
}

/**
 * An answer as shown beside its question: for a score question, the level index followed by the
 * level's text (clipped); any other answer unchanged.
 *
 * @param question The question (undefined when unknown: the answer is shown as it is).
 * @param answer The answer or gold label (a level index for a score question), or null.
 * @param options How much of the level's text is kept.
 * @returns The text, or null for a null answer.
 * @example
 * ```ts
 * import { levelText } from "./levels.ts";
 * const severity = { type: "score", criteria: ["None: a question.", "Low: an inconvenience."] };
 * levelText(severity, "1"); // "1 — Low: an inconvenience."
 * levelText({ type: "choice" }, "billing"); // "billing"
 * ```
 */
export function levelText(
  question: LevelsOf | undefined,
  answer: string | null,
  options: LevelTextOptions = {},
): string | null {
  if (answer === null || question?.type !== "score" || !Array.isArray(question.criteria)) {
    return answer;
  }
  const level = question.criteria[Number(answer)];
  if (!/^\d+$/.test(answer) || typeof level !== "string") return answer;
  const max = options.max ?? 48;
  // Clipped at a word boundary when one is in the second half of the kept text.
  let text = level;
  if (level.length > max) {
    const kept = level.slice(0, max - 1);
    const space = kept.lastIndexOf(" ");
    text = `${(space > max / 2 ? kept.slice(0, space) : kept).trimEnd()}…`;
  }
  return `${answer} — ${text}`;
}
