/**
 * The reference server's Cloudflare route, `POST /client/v4/accounts/<id>/ai/run/<model>` (also
 * `/ai/run/<model>` without the account prefix): System One questions in, Cloudflare's envelope
 * `{result, success, errors, messages}` out, `result` being the System One response with every
 * probability rounded to 4 decimals, as clef answers.
 *
 * Only `@cf/cloudflare/clef` is served; 1–64 questions per request. Errors are
 * `{"result": null, "success": false, "errors": [{"code", "message"}], "messages": []}` with codes
 * from Cloudflare's Workers AI error table where one fits: 5006 invalid input (400), 5007 no such
 * model (400), 3006 request too large (413), 3040 out of capacity (429). Statuses the table does
 * not cover use Cloudflare API codes: 10000 authentication (401), 7000 no route (404, 405);
 * 500 and 503 use 3043, the emulator's own stand-in.
 *
 * @module
 */
import type { WireAnswer } from "./answers.ts";
import { answerSystemOne, breakText, type Dialect } from "./_dialect.ts";
import type { ErrorStatus } from "./_responses.ts";

/** The one model the emulated Workers AI account serves. */
export const CLEF_SERVED_MODEL = "@cf/cloudflare/clef";

/** Most questions per clef request. */
export const CLEF_MAX_QUESTIONS = 64;

const CODES: Record<ErrorStatus, number> = {
  400: 5006,
  401: 10000,
  404: 7000,
  405: 7000,
  413: 3006,
  429: 3040,
  500: 3043,
  501: 5007,
  503: 3043,
};

/**
 * A Cloudflare-style error response.
 *
 * @param status HTTP status.
 * @param code Cloudflare error code.
 * @param message Message.
 * @param headers Extra headers.
 * @returns The response.
 */
function clefError(
  status: ErrorStatus,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body = { result: null, success: false, errors: [{ code, message }], messages: [] };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

function round4(p: number): number {
  return Math.round(p * 10_000) / 10_000;
}

function roundAnswer(answer: WireAnswer): void {
  if (answer.type === "noul") {
    answer.noul = round4(answer.noul);
    return;
  }
  for (const key of Object.keys(answer.probabilities)) {
    answer.probabilities[key] = round4(answer.probabilities[key] as number);
  }
  answer.confidence = round4(answer.confidence);
  if (answer.type === "score") answer.score = round4(answer.score);
}

/** The clef dialect. */
export const clefDialect: Dialect = {
  name: "clef",
  error(status, message, headers = {}) {
    return clefError(status, CODES[status], message, headers);
  },
  answer(json, context) {
    const model = context.routeModel ?? "";
    if (model !== CLEF_SERVED_MODEL) {
      return {
        ok: false,
        response: clefError(400, 5007, `No such model ${model} or task`),
      };
    }
    const questions = (json as { questions?: unknown } | null)?.questions;
    if (typeof questions === "object" && questions !== null) {
      const count = Object.keys(questions).length;
      if (count > CLEF_MAX_QUESTIONS) {
        return {
          ok: false,
          response: clefError(
            400,
            5006,
            `Invalid input: questions has ${count} entries, at most ${CLEF_MAX_QUESTIONS} allowed`,
          ),
        };
      }
    }
    const result = answerSystemOne(json, { ...context, defaultModel: model });
    if (!result.ok) {
      return { ok: false, response: clefError(400, 5006, `Invalid input: ${result.message}`) };
    }
    const { reply } = result.answered;
    for (const answer of Object.values(reply.answers)) {
      // An out-of-range fault stays out of range after rounding.
      roundAnswer(answer);
    }
    reply.model = model;
    const text = JSON.stringify({ result: reply, success: true, errors: [], messages: [] });
    return {
      ok: true,
      text: breakText(context.fault, text, '"answers":'),
      inputTokens: result.answered.inputTokens,
    };
  },
};
