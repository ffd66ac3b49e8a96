/**
 * The pcdServer engine: `POST /v1/pcd/decode`. Requests are translated from System One questions
 * (see `pcd_translate.ts`, every limit checked before sending); replies are checked as strictly
 * as System One answers and normalised to the same shape, marked `calibrated: false` (pcdServer's
 * probabilities are a raw softmax over the allowed values).
 *
 * The reply decibench reads:
 *
 * ```json
 * {
 *   "model": "qwen3-4b",
 *   "values": { "team": "billing", "spam": false, "urgency": "2" },
 *   "fields": {
 *     "team": { "value": "billing", "probability": 0.71,
 *               "probabilities": { "billing": 0.71, "shipping": 0.2, "other": 0.09 } },
 *     "spam": { "value": false, "probability": 0.9, "probabilities": { "false": 0.9, "true": 0.1 } },
 *     "urgency": { "value": "2", "probability": 0.6,
 *                  "probabilities": { "0": 0.1, "1": 0.3, "2": 0.6 } }
 *   },
 *   "metrics": { "prompt_tokens": 812, "timings": { "prompt_ms": 41.2, "decode_ms": 3.1, "total_ms": 44.5 },
 *                "cache": { "hit": false, "cached_tokens": 0 } }
 * }
 * ```
 *
 * `fields.<name>.probabilities` must cover exactly the field's choices (a yes/no field's keys are
 * `"false"` and `"true"`) and sum to 1 ± 1e-3; `value` must be one of the choices. Errors are
 * `{"error": {"code", "message", "field"?}}`; the codes of a request that does not fit a limit
 * (e.g. `context_overflow` when the rendered request exceeds the model's context) become error
 * kind `limit`.
 *
 * @module
 */
import { optionsOf, type Question } from "../dataset/mod.ts";
import type { Engine, EngineErrorInfo, EngineReply, NormalizedAnswer } from "./engine.ts";
import { AnswerValidationError } from "./errors.ts";
import { pcdField, translateForPcd } from "./pcd_translate.ts";
import { checkDistribution, parseJsonBody } from "./schemas.ts";
import { parseBaseUrl } from "./url.ts";

/** Error codes pcdServer answers when a request does not fit one of its limits. */
export const PCD_LIMIT_CODES: ReadonlySet<string> = new Set([
  "context_too_large",
  "field_count",
  "name_too_long",
  "duplicate_name",
  "description_too_long",
  "choice_count",
  "choice_too_long",
  "duplicate_choice",
  "context_overflow",
  "candidates_overflow",
  "request_too_large",
]);

/**
 * The pcdServer decode endpoint for a base URL: strip trailing `/`; keep a URL that already ends
 * in `/pcd/decode`; append `/pcd/decode` to one ending in `/v1`, else `/v1/pcd/decode`.
 *
 * @param base Base URL such as `http://127.0.0.1:8080`.
 * @returns The endpoint URL.
 * @throws {TypeError} When the base URL is invalid.
 * @example
 * ```ts
 * import { pcdUrl } from "./pcd.ts";
 * pcdUrl("http://127.0.0.1:8080/"); // "http://127.0.0.1:8080/v1/pcd/decode"
 * ```
 */
export function pcdUrl(base: string): string {
  const url = parseBaseUrl(base);
  let path = url.pathname.replace(/\/+$/, "");
  if (path.endsWith("/pcd/decode")) return `${url.origin}${path}${url.search}`;
  if (!path.endsWith("/v1")) path += "/v1";
  return `${url.origin}${path}/pcd/decode${url.search}`;
}

/** Options of {@linkcode pcdEngine}. */
export interface PcdEngineOptions {
  /** Extra headers sent with every request (never credentials). @default {} */
  headers?: Record<string, string> | undefined;
}

/**
 * Creates a pcdServer engine for a base URL.
 *
 * @param baseUrl Base URL of the server (`/v1/pcd/decode` is appended).
 * @param options Extra headers.
 * @returns The engine; its `build` throws `RangeError` naming the limit a case cannot fit.
 * @throws {TypeError} When the URL is invalid.
 * @example
 * ```ts
 * import { pcdEngine } from "./pcd.ts";
 * const engine = pcdEngine("http://127.0.0.1:8080");
 * const req = engine.build({
 *   state: { ticket: "refund please" },
 *   questions: { refund: { type: "noul", instructions: "Is this a refund request?" } },
 *   model: "default",
 *   stateEncoding: "json",
 * });
 * req.body; // '{"context":"{\"ticket\":\"refund please\"}","fields":[{"name":"refund",...}]}'
 * ```
 */
export function pcdEngine(baseUrl: string, options: PcdEngineOptions = {}): Engine {
  const url = pcdUrl(baseUrl);
  const headers = { "content-type": "application/json", ...options.headers };
  return {
    name: "pcd",
    url,
    params: { url },
    calibrated: false,
    build(input) {
      const { request } = translateForPcd(input.state, input.questions);
      return { url, headers, body: JSON.stringify(request) };
    },
    parse(body, questions) {
      return parsePcdReply(parseJsonBody(body), questions);
    },
    classifyError: pcdErrorInfo,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseField(
  name: string,
  raw: unknown,
  question: Question,
  issues: string[],
): NormalizedAnswer | null {
  const where = `fields.${name}`;
  if (!isObject(raw)) {
    issues.push(`${where}: ${raw === undefined ? "missing" : "expected an object"}`);
    return null;
  }
  const before = issues.length;
  // A yes/no field answers over the choices [false, true]: its keys are "true" and "false".
  const keys = optionsOf(question);
  const probabilities = checkDistribution(
    `${where}.probabilities`,
    raw.probabilities,
    keys,
    issues,
  );
  const value = raw.value;
  const valueOk = question.type === "noul"
    ? typeof value === "boolean"
    : typeof value === "string" && keys.includes(value);
  if (!valueOk) {
    issues.push(
      `${where}.value: ${JSON.stringify(value)} is not one of the choices ${
        question.type === "noul" ? "false, true" : keys.map((k) => JSON.stringify(k)).join(", ")
      }`,
    );
  }
  const p = raw.probability;
  if (p !== undefined && !(typeof p === "number" && Number.isFinite(p) && p >= 0 && p <= 1)) {
    issues.push(`${where}.probability: ${JSON.stringify(p)} is not a finite number in [0, 1]`);
  }
  if (!probabilities || issues.length > before) return null;
  const native: Record<string, unknown> = { value };
  if (question.type === "score") {
    // pcdServer has no graded type: the expected level is computed from its probabilities.
    let expected = 0;
    keys.forEach((key, level) => expected += level * (probabilities[key] as number));
    native.score = expected;
  }
  if (raw.levels !== undefined) native.levels = raw.levels;
  const answer: NormalizedAnswer = {
    type: question.type,
    probabilities,
    probability: Math.max(...Object.values(probabilities)),
    calibrated: false,
    native,
  };
  const clipped = pcdField(name, question).clipped;
  if (clipped > 0) {
    answer.warnings = [
      `field description clipped at 1,024 bytes (${clipped} bytes of option texts not sent)`,
    ];
  }
  return answer;
}

/**
 * Validates a pcdServer reply strictly and normalises it: every question asked has its field,
 * each field's probabilities cover exactly its choices, are finite in [0, 1] and sum to 1 ± 1e-3,
 * and its `value` is one of the choices. Nothing is renormalised. Score fields get their expected
 * level (`native.score`) from the probabilities; answers whose description was clipped carry a
 * warning.
 *
 * @param body The parsed JSON reply.
 * @param questions The questions asked (as System One questions).
 * @returns The normalised reply, every answer `calibrated: false`.
 * @throws {AnswerValidationError} With every problem found.
 * @example
 * ```ts
 * import { parsePcdReply } from "./pcd.ts";
 * const reply = parsePcdReply(
 *   { fields: { ok: { value: true, probability: 0.8, probabilities: { false: 0.2, true: 0.8 } } } },
 *   { ok: { type: "noul", instructions: "Fine?" } },
 * );
 * reply.answers.ok?.probabilities; // { true: 0.8, false: 0.2 }
 * ```
 */
export function parsePcdReply(body: unknown, questions: Record<string, Question>): EngineReply {
  if (!isObject(body)) {
    throw new AnswerValidationError(["reply: expected a JSON object"], { notAReply: true });
  }
  if (!isObject(body.fields)) {
    // Without `fields` the body is not a pcdServer reply at all.
    throw new AnswerValidationError([
      `fields: ${body.fields === undefined ? "missing" : "expected an object of fields by name"}`,
    ], { notAReply: true });
  }
  const issues: string[] = [];
  const answers: Record<string, NormalizedAnswer> = {};
  for (const [name, question] of Object.entries(questions)) {
    const answer = parseField(name, body.fields[name], question, issues);
    if (answer) answers[name] = answer;
  }
  if (body.model !== undefined && typeof body.model !== "string") {
    issues.push(`model: expected a string, got ${JSON.stringify(body.model)}`);
  }
  if (issues.length) throw new AnswerValidationError(issues);
  const reply: EngineReply = { answers };
  if (typeof body.model === "string") reply.model = body.model;
  const metrics = isObject(body.metrics) ? body.metrics : undefined;
  if (typeof metrics?.prompt_tokens === "number") reply.inputTokens = metrics.prompt_tokens;
  return reply;
}

/**
 * Reads pcdServer's error envelope `{"error": {"code", "message", "field"?}}`: a limit code
 * becomes kind `limit` (not retried), a missing route says the server is not a pcdServer.
 *
 * @param status HTTP status (non-2xx).
 * @param body The body text.
 * @returns Kind and message, or undefined when the body is not pcdServer's envelope.
 * @example
 * ```ts
 * import { pcdErrorInfo } from "./pcd.ts";
 * pcdErrorInfo(400, '{"error":{"code":"context_overflow","message":"too long"}}')?.kind; // "limit"
 * ```
 */
export function pcdErrorInfo(status: number, body: string): EngineErrorInfo | undefined {
  let error: unknown;
  try {
    error = (JSON.parse(body) as { error?: unknown })?.error;
  } catch {
    error = undefined;
  }
  const info: EngineErrorInfo = {};
  if (isObject(error) && typeof error.message === "string") {
    const field = typeof error.field === "string" ? ` (${error.field})` : "";
    const code = typeof error.code === "string" ? ` [${error.code}]` : "";
    info.message = `${error.message}${field}${code}`;
    if (typeof error.code === "string" && PCD_LIMIT_CODES.has(error.code)) {
      info.kind = "limit";
      info.transient = false;
    }
  }
  if (status === 404 || status === 405 || status === 501) {
    info.kind = "unsupported_endpoint";
    info.message = `the server does not serve pcdServer's POST /v1/pcd/decode${
      info.message ? ` (${info.message})` : ""
    }; check --base-url and that the server is a pcdServer`;
  }
  return info.message === undefined && info.kind === undefined ? undefined : info;
}
