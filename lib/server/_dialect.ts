/**
 * Dialects of the reference server: each decision route (llama-server's System One, OpenRouter's
 * relay, Cloudflare's clef, pcdServer) shares authentication, fault draws, latency and body limits
 * and differs in how it reads a request, shapes its answer and writes its errors.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import {
  buildAnswers,
  estimateInputTokens,
  type SystemOneResponse,
  type WireAnswer,
} from "./answers.ts";
import type { FaultKind } from "./faults.ts";
import type { Distributions, Predictor } from "./predictor.ts";
import { errorResponse, type ErrorStatus } from "./_responses.ts";
import { formatIssues, SystemOneRequestSchema } from "./schemas.ts";

/** What a dialect needs to answer one request. */
export interface DialectContext {
  /** The predictor that answers. */
  predictor: Predictor;
  /** The model name to report when the request names none. */
  defaultModel: string;
  /** The answer fault drawn for this request, if any (transport faults never get here). */
  fault: FaultKind | undefined;
  /** Adds this request's `jitter` noise to the predictor's distributions, when configured. */
  jitter:
    | ((distributions: Distributions, questions: Record<string, Question>) => Distributions)
    | undefined;
  /** The model named in the URL (Cloudflare's run route), if any. */
  routeModel: string | undefined;
  /** Sequence number of the request (for response ids). */
  sequence: number;
}

/** An answered request, or the error response that replaces it. */
export type DialectResult =
  | { ok: true; text: string; inputTokens: number }
  | { ok: false; response: Response };

/** One decision route's wire format. */
export interface Dialect {
  /** Name for messages. */
  name: string;
  /** The route's error envelope for a status and message. */
  error(status: ErrorStatus, message: string, headers?: Record<string, string>): Response;
  /** Reads a parsed JSON body and answers it (or refuses it). */
  answer(json: unknown, context: DialectContext): DialectResult;
}

/** A System One request answered, before a dialect serialises it. */
export interface SystemOneAnswered {
  /** The response envelope. */
  reply: SystemOneResponse;
  /** The validated questions. */
  questions: Record<string, Question>;
  /** The input-token estimate. */
  inputTokens: number;
}

/**
 * Validates a System One body and answers it with the predictor (answer faults applied).
 *
 * @param json The parsed body.
 * @param context Predictor, default model, fault.
 * @returns The answers, or a 400 status with the message naming the field.
 */
export function answerSystemOne(
  json: unknown,
  context: DialectContext,
): { ok: true; answered: SystemOneAnswered } | { ok: false; status: 400; message: string } {
  const parsed = SystemOneRequestSchema.safeParse(json);
  if (!parsed.success) return { ok: false, status: 400, message: formatIssues(parsed.error) };
  const { model, state, questions } = parsed.data;
  let answers: Record<string, WireAnswer>;
  try {
    const predicted = context.predictor.predict(state, questions);
    answers = buildAnswers(questions, context.jitter?.(predicted, questions) ?? predicted);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, status: 400, message: error.message };
    throw error;
  }
  const inputTokens = estimateInputTokens(state, (json as { questions: unknown }).questions);
  if (context.fault) corruptAnswers(context.fault, answers, questions);
  return {
    ok: true,
    answered: {
      reply: {
        model: model ?? context.defaultModel,
        answers,
        usage: { input_tokens: inputTokens, output_tokens: 0 },
      },
      questions,
      inputTokens,
    },
  };
}

/** Breaks the first question's answer the way an answer fault says. */
function corruptAnswers(
  kind: FaultKind,
  answers: Record<string, WireAnswer>,
  questions: Record<string, Question>,
): void {
  const name = Object.keys(questions)[0];
  if (name === undefined) return;
  const answer = answers[name];
  if (answer === undefined) return;
  if (kind === "out_of_range") {
    if (answer.type === "noul") answer.noul = 1.25;
    else {
      const first = Object.keys(answer.probabilities)[0];
      if (first !== undefined) answer.probabilities[first] = 1.25;
    }
  } else if (kind === "missing_option") {
    if (answer.type === "noul") delete (answer as Partial<typeof answer>).noul;
    else {
      const last = Object.keys(answer.probabilities).at(-1);
      if (last !== undefined) delete answer.probabilities[last];
    }
  }
}

/**
 * Applies the body faults to serialised JSON: `malformed` breaks the JSON after `key`,
 * `truncated` cuts the text in half.
 *
 * @param fault The fault drawn, if any.
 * @param text The JSON text.
 * @param key A key the text contains, e.g. `"answers":`.
 * @returns The text to send.
 */
export function breakText(fault: FaultKind | undefined, text: string, key: string): string {
  if (fault === "malformed") return text.replace(key, key.slice(0, -1) + " ");
  if (fault === "truncated") return text.slice(0, Math.floor(text.length / 2));
  return text;
}

/** llama-server's System One at `/v1/systemone`: `{model, answers, usage}`, llama-style errors. */
export const llamaDialect: Dialect = {
  name: "systemone",
  error: errorResponse,
  answer(json, context) {
    const result = answerSystemOne(json, context);
    if (!result.ok) return { ok: false, response: errorResponse(result.status, result.message) };
    const text = JSON.stringify(result.answered.reply);
    return {
      ok: true,
      text: breakText(context.fault, text, '"answers":'),
      inputTokens: result.answered.inputTokens,
    };
  },
};
