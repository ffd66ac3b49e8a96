/**
 * Cloudflare's clef on Workers AI: System One questions and answers inside Cloudflare's REST
 * envelope. The model is in the URL (`<account base>/ai/run/@cf/cloudflare/clef`), a request asks
 * 1–64 questions, replies are `{result, success, errors, messages}` with `result` a System One
 * response whose probabilities are rounded to 4 decimals.
 *
 * Errors are `{"result": null, "success": false, "errors": [{"code", "message"}], "messages": []}`.
 * Their codes decide what a failure means, following Cloudflare's Workers AI error table: out of
 * capacity (3040) and timeouts (3007, 3008) are retried; a used-up daily allocation (3036, also
 * HTTP 429) is not, and stops the run; an unknown model (5007, 3042) stops the run; invalid input
 * (5004, 5006, 3003) and a too-large request (3006) are final for the case.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import type { Engine, EngineErrorInfo, EngineReply } from "./engine.ts";
import { EndpointError } from "./errors.ts";
import { AnswerValidationError } from "./errors.ts";
import { parseJsonBody, parseSystemOneReply } from "./schemas.ts";
import { parseBaseUrl } from "./url.ts";

/** The clef model on Workers AI (used when the endpoint's model is `default`). */
export const CLEF_MODEL = "@cf/cloudflare/clef";

/** The account id placeholder of `workflows/clef.ts`, refused until replaced. */
export const CLEF_ACCOUNT_PLACEHOLDER = "YOUR_ACCOUNT_ID";

/** Questions per clef request. */
export const CLEF_QUESTIONS = { min: 1, max: 64 } as const;

/** Decimals clef rounds probabilities to. */
export const CLEF_DECIMALS = 4;

/**
 * What each Cloudflare Workers AI error code means for a benchmark run. Codes not listed keep the
 * HTTP status's kind.
 */
export const CLEF_ERROR_CODES: Readonly<Record<number, Omit<EngineErrorInfo, "message">>> = {
  3003: { kind: "invalid_request", transient: false },
  3006: { kind: "limit", transient: false },
  3007: { kind: "timeout", transient: true },
  3008: { kind: "timeout", transient: true },
  3036: { kind: "rate_limited", transient: false, fatal: true },
  3040: { kind: "overloaded", transient: true },
  3042: { kind: "unsupported_endpoint", fatal: true },
  5004: { kind: "invalid_request", transient: false },
  5006: { kind: "invalid_request", transient: false },
  5007: { kind: "unsupported_endpoint", fatal: true },
};

/**
 * The clef endpoint: a URL whose path already has `/ai/run/` is kept; otherwise `/ai/run/<model>`
 * is appended to the account base (`https://api.cloudflare.com/client/v4/accounts/<id>`).
 *
 * @param base Account base URL, or the full run URL.
 * @param model Model id such as `@cf/cloudflare/clef` (`default` means {@linkcode CLEF_MODEL}).
 * @returns The endpoint URL.
 * @throws {TypeError} When the base URL is invalid.
 * @example
 * ```ts
 * import { clefUrl } from "./clef.ts";
 * clefUrl("https://api.cloudflare.com/client/v4/accounts/abc/", "default");
 * // "https://api.cloudflare.com/client/v4/accounts/abc/ai/run/@cf/cloudflare/clef"
 * ```
 */
export function clefUrl(base: string, model: string): string {
  const url = parseBaseUrl(base);
  const path = url.pathname.replace(/\/+$/, "");
  if (path.includes("/ai/run/")) return `${url.origin}${path}${url.search}`;
  const id = model === "default" ? CLEF_MODEL : model;
  return `${url.origin}${path}/ai/run/${id}${url.search}`;
}

/** Options of {@linkcode clefEngine}. */
export interface ClefEngineOptions {
  /** Model id placed in the URL. @default "@cf/cloudflare/clef" */
  model?: string | undefined;
  /** Extra headers sent with every request (never credentials). @default {} */
  headers?: Record<string, string> | undefined;
}

/**
 * Creates a clef engine for a Cloudflare account base URL.
 *
 * @param baseUrl Account base URL (`https://api.cloudflare.com/client/v4/accounts/<id>`).
 * @param options Model and extra headers.
 * @returns The engine; its `build` throws `RangeError` for fewer than 1 or more than 64 questions.
 * @throws {TypeError} When the URL is invalid or still holds the account id placeholder.
 * @example
 * ```ts
 * import { clefEngine } from "./clef.ts";
 * const engine = clefEngine("http://127.0.0.1:8787/client/v4/accounts/test");
 * const req = engine.build({
 *   state: "a refund request",
 *   questions: { refund: { type: "noul", instructions: "Is this a refund request?" } },
 *   model: "default",
 *   stateEncoding: "json",
 * });
 * req.url; // "http://127.0.0.1:8787/client/v4/accounts/test/ai/run/@cf/cloudflare/clef"
 * ```
 */
export function clefEngine(baseUrl: string, options: ClefEngineOptions = {}): Engine {
  if (baseUrl.includes(CLEF_ACCOUNT_PLACEHOLDER)) {
    throw new TypeError(
      `Cannot use clef: the base URL still says "${CLEF_ACCOUNT_PLACEHOLDER}"; put your Cloudflare account id in the workflow's baseUrl or pass --base-url https://api.cloudflare.com/client/v4/accounts/<account id>`,
    );
  }
  const model = options.model ?? CLEF_MODEL;
  const url = clefUrl(baseUrl, model);
  const headers = { "content-type": "application/json", ...options.headers };
  return {
    name: "clef",
    url,
    params: { url, decimals: CLEF_DECIMALS },
    calibrated: true,
    build(input) {
      const count = Object.keys(input.questions).length;
      if (count < CLEF_QUESTIONS.min || count > CLEF_QUESTIONS.max) {
        throw new RangeError(
          `Cannot send the case to clef: it asks ${count} questions; a clef request takes ${CLEF_QUESTIONS.min}–${CLEF_QUESTIONS.max}`,
        );
      }
      const state = input.stateEncoding === "text" ? JSON.stringify(input.state) : input.state;
      // The model is in the URL: the body is the System One body without it.
      return { url, headers, body: JSON.stringify({ state, questions: input.questions }) };
    },
    parse(body, questions) {
      return parseClefReply(parseJsonBody(body), questions);
    },
    classifyError: clefErrorInfo,
  };
}

function firstError(body: unknown): { code?: number; message?: string } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const first = errors[0] as { code?: unknown; message?: unknown } | null;
  if (typeof first !== "object" || first === null) return undefined;
  const out: { code?: number; message?: string } = {};
  if (typeof first.code === "number") out.code = first.code;
  if (typeof first.message === "string") out.message = first.message;
  return out;
}

function infoFor(error: { code?: number; message?: string }): EngineErrorInfo {
  const known = error.code === undefined ? undefined : CLEF_ERROR_CODES[error.code];
  const info: EngineErrorInfo = { ...known };
  const code = error.code === undefined ? "" : ` (Cloudflare code ${error.code})`;
  info.message = `${error.message ?? "no message"}${code}`;
  return info;
}

/**
 * Reads Cloudflare's error envelope: the first entry of `errors` gives the message and, by its
 * code ({@linkcode CLEF_ERROR_CODES}), the kind and whether to retry.
 *
 * @param _status HTTP status (the code decides; the status is the fallback).
 * @param body The body text.
 * @returns Kind, message and retry decision, or undefined when the body has no `errors` entry.
 * @example
 * ```ts
 * import { clefErrorInfo } from "./clef.ts";
 * const info = clefErrorInfo(429, '{"result":null,"success":false,"errors":[{"code":3036,"message":"daily allocation used"}],"messages":[]}');
 * info?.fatal; // true: not retried, the run stops
 * ```
 */
export function clefErrorInfo(_status: number, body: string): EngineErrorInfo | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = firstError(parsed);
  return error ? infoFor(error) : undefined;
}

/**
 * Unwraps and validates a clef reply: `success` must be true and `result` a System One response
 * that passes the strict checks, with the sum tolerance widened for 4-decimal rounding. A 2xx
 * reply with `success: false` is an endpoint error classified by its code (invalid input is final,
 * anything else is treated as a transient backend failure).
 *
 * @param body The parsed JSON reply.
 * @param questions The questions asked.
 * @returns The normalised reply.
 * @throws {AnswerValidationError} When the envelope or the answers are malformed.
 * @throws {EndpointError} When the envelope reports `success: false`.
 * @example
 * ```ts
 * import { parseClefReply } from "./clef.ts";
 * const reply = parseClefReply({
 *   result: { model: "@cf/cloudflare/clef", answers: { ok: { type: "noul", noul: 0.8123 } },
 *             usage: { input_tokens: 12, output_tokens: 0 } },
 *   success: true, errors: [], messages: [],
 * }, { ok: { type: "noul", instructions: "Fine?" } });
 * reply.answers.ok?.probability; // 0.8123
 * ```
 */
export function parseClefReply(body: unknown, questions: Record<string, Question>): EngineReply {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AnswerValidationError(["reply: expected Cloudflare's {result, success} envelope"], {
      notAReply: true,
    });
  }
  const envelope = body as { result?: unknown; success?: unknown };
  if (envelope.success === false) {
    const error = firstError(body) ?? {};
    const info = infoFor(error);
    throw new EndpointError(
      info.kind ?? "unavailable",
      `Cloudflare answered success: false: ${info.message}`,
      {
        transient: info.transient ?? (info.kind === undefined ? true : undefined),
        fatal: info.fatal,
      },
    );
  }
  if (envelope.success !== true) {
    throw new AnswerValidationError([
      `success: expected true or false, got ${JSON.stringify(envelope.success)}`,
    ], { notAReply: envelope.success === undefined });
  }
  if (typeof envelope.result !== "object" || envelope.result === null) {
    throw new AnswerValidationError(["result: expected the System One response object"], {
      notAReply: true,
    });
  }
  return parseSystemOneReply(envelope.result, questions, { decimals: CLEF_DECIMALS });
}
