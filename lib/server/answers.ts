/**
 * Turns a predictor's distributions into System One answers shaped the way llama-server
 * (b11361 and later) shapes them.
 *
 * @module
 */
import { optionsOf, type Question } from "../dataset/mod.ts";
import type { Distributions } from "./predictor.ts";

/** A choice answer: the top option, one probability per option (option order), confidence. */
export interface ChoiceAnswer {
  /** Always `choice`. */
  type: "choice";
  /** The most likely option (ties go to the option listed first). */
  choice: string;
  /** Probability per option, in the question's option order. */
  probabilities: Record<string, number>;
  /** (p_max − 1/N)/(1 − 1/N). */
  confidence: number;
}

/** A score answer: the expected level, probability per level, confidence and legend. */
export interface ScoreAnswer {
  /** Always `score`. */
  type: "score";
  /** The expected level Σ i·p_i. */
  score: number;
  /** Probability per level, keyed `"0".."n-1"`. */
  probabilities: Record<string, number>;
  /** Concentration around the top level: see {@linkcode scoreConfidenceOf}. */
  confidence: number;
  /** Level → its description. */
  legend: Record<string, string>;
}

/** A yes/no answer: P(true) only. */
export interface NoulAnswer {
  /** Always `noul` (also for questions sent as `bool`). */
  type: "noul";
  /** P(true), in [0,1]. */
  noul: number;
}

/** Any System One answer. */
export type WireAnswer = ChoiceAnswer | ScoreAnswer | NoulAnswer;

/** The System One response envelope, exactly `{model, answers, usage}`. */
export interface SystemOneResponse {
  /** The model that answered. */
  model: string;
  /** Answers by question name, in the request's question order. */
  answers: Record<string, WireAnswer>;
  /** Token usage: decision models generate nothing. */
  usage: { input_tokens: number; output_tokens: 0 };
}

/**
 * llama-server's confidence: how far the top probability is above uniform, scaled to [0,1].
 *
 * @param top The top probability.
 * @param n The number of options (≥ 2).
 * @returns (top − 1/n)/(1 − 1/n).
 */
export function confidenceOf(top: number, n: number): number {
  return (top - 1 / n) / (1 - 1 / n);
}

/**
 * The confidence of a score answer as Typed Decisions' gold defines it: 1 − E|level − top level|
 * divided by the same mean distance for a uniform answer around the middle level, floored at 0.
 * It is 1 when all mass is on one level and 0 for a uniform (or wider) spread; with two levels
 * it equals {@linkcode confidenceOf}.
 *
 * @param probabilities Probability per level, level 0 first.
 * @param top The index of the top level.
 * @returns The confidence in [0,1].
 */
export function scoreConfidenceOf(probabilities: readonly number[], top: number): number {
  const n = probabilities.length;
  let spread = 0;
  let uniformSpread = 0;
  for (let i = 0; i < n; i++) {
    spread += probabilities[i]! * Math.abs(i - top);
    uniformSpread += Math.abs(i - (n - 1) / 2) / n;
  }
  return Math.max(0, 1 - spread / uniformSpread);
}

/**
 * Builds the answers for validated questions from a predictor's distributions. An option a
 * distribution leaves out gets probability 0 (predictors are expected to cover every option).
 *
 * @param questions The questions, in request order.
 * @param distributions Distribution per question, keyed as `optionsOf(question)`.
 * @returns The answers, in request order.
 * @throws {RangeError} When a distribution for a question is missing.
 * @example
 * ```ts
 * import { buildAnswers } from "./answers.ts";
 * const answers = buildAnswers(
 *   { ok: { type: "noul", instructions: "Is it fine?" } },
 *   { ok: { true: 0.8, false: 0.2 } },
 * );
 * answers.ok; // { type: "noul", noul: 0.8 }
 * ```
 */
export function buildAnswers(
  questions: Record<string, Question>,
  distributions: Distributions,
): Record<string, WireAnswer> {
  const answers: Record<string, WireAnswer> = {};
  for (const name in questions) {
    const question = questions[name]!;
    const distribution = distributions[name];
    if (distribution === undefined) {
      throw new RangeError(`Cannot answer question "${name}": the predictor gave no distribution`);
    }
    if (question.type === "noul") {
      answers[name] = { type: "noul", noul: distribution["true"] ?? 0 };
      continue;
    }
    const options = optionsOf(question);
    const probabilities: Record<string, number> = {};
    const values: number[] = new Array(options.length);
    let top = 0;
    let expected = 0;
    for (let i = 0; i < options.length; i++) {
      const p = distribution[options[i]!] ?? 0;
      probabilities[options[i]!] = p;
      values[i] = p;
      expected += i * p;
      if (p > values[top]!) top = i;
    }
    if (question.type === "choice") {
      const confidence = confidenceOf(values[top]!, options.length);
      answers[name] = { type: "choice", choice: options[top]!, probabilities, confidence };
    } else {
      const legend: Record<string, string> = {};
      question.criteria.forEach((text, i) => {
        legend[String(i)] = text;
      });
      const confidence = scoreConfidenceOf(values, top);
      answers[name] = { type: "score", score: expected, probabilities, confidence, legend };
    }
  }
  return answers;
}

const encoder = new TextEncoder();

/**
 * A deterministic input-token estimate: ⌈(UTF-8 bytes of the state text + of the questions'
 * JSON) / 4⌉, where the state text is the string itself or the state's JSON.
 *
 * @param state The request's state.
 * @param questions The questions as sent.
 * @returns The estimate.
 */
export function estimateInputTokens(state: unknown, questions: unknown): number {
  const stateText = typeof state === "string" ? state : JSON.stringify(state);
  const bytes = utf8Length(stateText) + utf8Length(JSON.stringify(questions));
  return Math.ceil(bytes / 4);
}

function utf8Length(text: string): number {
  // ASCII-only text (the common case) needs no encoding.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}
