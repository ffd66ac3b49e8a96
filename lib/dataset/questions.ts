/**
 * Option order of a question: the one place that decides how a question's answers are keyed.
 *
 * @module
 */
import type { Question } from "./schemas.ts";

/**
 * The answer keys of a question, in the order that breaks ties.
 *
 * choice → the criteria's option names in order; score → `"0".."n-1"`; noul → `["true", "false"]`
 * (so a 0.5 yes/no answer predicts `true`).
 *
 * @param question The question as sent.
 * @returns The option keys, first listed first.
 * @example
 * ```ts
 * import { optionsOf } from "./questions.ts";
 * optionsOf({ type: "score", instructions: "How bad?", criteria: ["low", "high"] }); // ["0", "1"]
 * ```
 */
export function optionsOf(question: Question): string[] {
  switch (question.type) {
    case "choice":
      return Array.isArray(question.criteria)
        ? [...question.criteria]
        : Object.keys(question.criteria);
    case "score":
      return question.criteria.map((_, i) => String(i));
    case "noul":
      return ["true", "false"];
  }
}

const questionsJsonCache = new WeakMap<object, string>();

/**
 * `JSON.stringify` of a case's questions, serialised once per questions object: the cases of a
 * workflow share one (frozen) object, so a run sends and fingerprints the same JSON for all of
 * them. The object must not change after the first call.
 *
 * @param questions A case's questions.
 * @returns Their JSON, the bytes `JSON.stringify(questions)` gives.
 * @example
 * ```ts
 * import { questionsJson } from "./questions.ts";
 * const questions = { ok: { type: "noul" as const, instructions: "Fine?" } };
 * if (questionsJson(questions) !== JSON.stringify(questions)) throw new Error("different JSON");
 * ```
 */
export function questionsJson(questions: Record<string, Question>): string {
  let json = questionsJsonCache.get(questions);
  if (json === undefined) {
    json = JSON.stringify(questions);
    questionsJsonCache.set(questions, json);
  }
  return json;
}
