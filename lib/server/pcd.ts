/**
 * The reference server's pcdServer route, `POST /v1/pcd/decode`: validates `{context, fields}`
 * against pcdServer's limits (its own checks, independent of the client's), answers each field
 * with the predictor, and replies `{model, values, fields, metrics}`.
 *
 * A field is read back as a question for the predictor: choices exactly `[false, true]` → yes/no;
 * choices `"0"`, `"1"`, … in order → a score with that many levels; anything else → a choice
 * over the choices. Each field's probabilities are keyed by its choices (`"false"`, `"true"` for a
 * yes/no) and its `value` is the most likely choice (the first listed wins a tie).
 *
 * Errors are `{"error": {"code", "message", "field"?}}`. Limit codes: `context_too_large`
 * (context over 64 KiB), `field_count` (not 1–63 fields), `name_too_long`, `duplicate_name`,
 * `description_too_long`, `choice_count` (not 2–256), `choice_too_long`, `duplicate_choice`,
 * `context_overflow` (the request is estimated at more than the model's 8,192-token context) and
 * `candidates_overflow` (more than 4,096 candidate tokens). Other codes: `invalid_request`,
 * `unauthorized`, `not_found`, `method_not_allowed`, `request_too_large`, `busy` (429),
 * `internal`, `not_supported`, `unavailable`.
 *
 * @module
 */
import { optionsOf, type Question } from "../dataset/mod.ts";
import { breakText, type Dialect, type DialectContext, type DialectResult } from "./_dialect.ts";
import type { ErrorStatus } from "./_responses.ts";

/** pcdServer's limits as the reference server enforces them. */
export const PCD_SERVER_LIMITS = {
  /** Largest context in UTF-8 bytes. */
  contextBytes: 65_536,
  /** Fields per request. */
  fields: { min: 1, max: 63 },
  /** Longest field name in UTF-8 bytes. */
  nameBytes: 128,
  /** Longest description in UTF-8 bytes. */
  descriptionBytes: 1_024,
  /** Choices per field. */
  choices: { min: 2, max: 256 },
  /** Longest choice in UTF-8 bytes. */
  choiceBytes: 256,
  /** The default model's context, in (estimated) tokens. */
  contextTokens: 8_192,
  /** Candidate tokens over all choices of a request. */
  candidateTokens: 4_096,
} as const;

const CODES: Record<ErrorStatus, string> = {
  400: "invalid_request",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  413: "request_too_large",
  429: "busy",
  500: "internal",
  501: "not_supported",
  503: "unavailable",
};

const encoder = new TextEncoder();
function bytes(text: string): number {
  return encoder.encode(text).length;
}
function tokens(text: string): number {
  return Math.ceil(bytes(text) / 4);
}

/**
 * A pcdServer error response.
 *
 * @param status HTTP status.
 * @param code Error code.
 * @param message Message.
 * @param field The offending field's path, if any.
 * @param headers Extra headers.
 * @returns The response.
 */
function pcdError(
  status: ErrorStatus,
  code: string,
  message: string,
  field?: string,
  headers: Record<string, string> = {},
): Response {
  const error: Record<string, string> = { code, message };
  if (field !== undefined) error.field = field;
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

interface Field {
  name: string;
  description: string;
  choices: string[] | [false, true];
}

type Checked = { ok: true; context: string; fields: Field[] } | { ok: false; response: Response };

function refuse(code: string, message: string, field?: string): Checked {
  return { ok: false, response: pcdError(400, code, message, field) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Validates a decode body in the order pcdServer would: shape, then each limit. */
function check(json: unknown): Checked {
  const L = PCD_SERVER_LIMITS;
  if (!isObject(json)) return refuse("invalid_request", "expected a JSON object");
  const unknown = Object.keys(json).filter((k) => k !== "context" && k !== "fields");
  if (unknown.length) {
    return refuse(
      "invalid_request",
      `unknown field ${
        unknown.map((k) => `"${k}"`).join(", ")
      }: a decode request takes context and fields`,
      unknown[0],
    );
  }
  if (typeof json.context !== "string") {
    return refuse("invalid_request", "required: context, a string", "context");
  }
  if (bytes(json.context) > L.contextBytes) {
    return refuse(
      "context_too_large",
      `context is ${bytes(json.context)} bytes; the limit is ${L.contextBytes}`,
      "context",
    );
  }
  if (!Array.isArray(json.fields)) {
    return refuse("invalid_request", "required: fields, a list of fields", "fields");
  }
  if (json.fields.length < L.fields.min || json.fields.length > L.fields.max) {
    return refuse(
      "field_count",
      `expected ${L.fields.min}-${L.fields.max} fields, got ${json.fields.length}`,
      "fields",
    );
  }
  const names = new Set<string>();
  const fields: Field[] = [];
  let candidates = 0;
  for (let i = 0; i < json.fields.length; i++) {
    const where = `fields[${i}]`;
    const raw: unknown = json.fields[i];
    if (!isObject(raw)) return refuse("invalid_request", "expected a field object", where);
    const extra = Object.keys(raw).filter((k) => !["name", "description", "choices"].includes(k));
    if (extra.length) {
      return refuse(
        "invalid_request",
        `unknown key "${extra[0]}": a field takes name, description and choices`,
        where,
      );
    }
    const { name, description, choices } = raw;
    if (typeof name !== "string" || name === "") {
      return refuse("invalid_request", "required: name, a non-empty string", `${where}.name`);
    }
    if (bytes(name) > L.nameBytes) {
      return refuse(
        "name_too_long",
        `name is ${bytes(name)} bytes; the limit is ${L.nameBytes}`,
        `${where}.name`,
      );
    }
    if (names.has(name)) {
      return refuse("duplicate_name", `field name "${name}" is used twice`, `${where}.name`);
    }
    names.add(name);
    if (typeof description !== "string") {
      return refuse("invalid_request", "required: description, a string", `${where}.description`);
    }
    if (bytes(description) > L.descriptionBytes) {
      return refuse(
        "description_too_long",
        `description is ${bytes(description)} bytes; the limit is ${L.descriptionBytes}`,
        `${where}.description`,
      );
    }
    if (!Array.isArray(choices)) {
      return refuse("invalid_request", "required: choices, a list", `${where}.choices`);
    }
    if (choices.length === 2 && choices[0] === false && choices[1] === true) {
      fields.push({ name, description, choices: [false, true] });
      candidates += 2;
      continue;
    }
    if (!choices.every((c): c is string => typeof c === "string")) {
      return refuse(
        "invalid_request",
        "choices must be strings, or exactly [false, true]",
        `${where}.choices`,
      );
    }
    if (choices.length < L.choices.min || choices.length > L.choices.max) {
      return refuse(
        "choice_count",
        `expected ${L.choices.min}-${L.choices.max} choices, got ${choices.length}`,
        `${where}.choices`,
      );
    }
    const seen = new Set<string>();
    for (let k = 0; k < choices.length; k++) {
      const choice = choices[k] as string;
      if (bytes(choice) > L.choiceBytes) {
        return refuse(
          "choice_too_long",
          `choice is ${bytes(choice)} bytes; the limit is ${L.choiceBytes}`,
          `${where}.choices[${k}]`,
        );
      }
      if (seen.has(choice)) {
        return refuse(
          "duplicate_choice",
          `choice "${choice}" is listed twice`,
          `${where}.choices[${k}]`,
        );
      }
      seen.add(choice);
      candidates += Math.max(1, tokens(choice));
    }
    fields.push({ name, description, choices });
  }
  if (candidates > L.candidateTokens) {
    return refuse(
      "candidates_overflow",
      `the choices come to about ${candidates} candidate tokens; the limit is ${L.candidateTokens}`,
      "fields",
    );
  }
  const estimate = tokens(json.context) + tokens(JSON.stringify(json.fields));
  if (estimate > L.contextTokens) {
    return refuse(
      "context_overflow",
      `the request needs about ${estimate} tokens; the model's context is ${L.contextTokens}`,
    );
  }
  return { ok: true, context: json.context, fields };
}

/** The question a field stands for, as far as predictors need one. */
function questionOf(field: Field): Question {
  const { choices, description } = field;
  const instructions = description === "" ? field.name : description;
  if (typeof choices[0] === "boolean") return { type: "noul", instructions };
  const strings = choices as string[];
  if (strings.length <= 10 && strings.every((c, i) => c === String(i))) {
    return { type: "score", instructions, criteria: strings.map((c) => `level ${c}`) };
  }
  return { type: "choice", instructions, criteria: strings };
}

function answer(json: unknown, context: DialectContext): DialectResult {
  const started = performance.now();
  const checked = check(json);
  if (!checked.ok) return checked;
  const questions: Record<string, Question> = {};
  for (const field of checked.fields) questions[field.name] = questionOf(field);
  let distributions: Record<string, Record<string, number>>;
  try {
    distributions = context.predictor.predict(checked.context, questions);
    if (context.jitter) distributions = context.jitter(distributions, questions);
  } catch (error) {
    if (error instanceof RangeError) {
      return { ok: false, response: pcdError(400, "invalid_request", error.message) };
    }
    throw error;
  }
  const values: Record<string, string | boolean> = {};
  const fields: Record<string, Record<string, unknown>> = {};
  for (const field of checked.fields) {
    const question = questions[field.name] as Question;
    const distribution = distributions[field.name] ?? {};
    // Keys in the field's choice order; a yes/no field's choices are false, true.
    const keys = question.type === "noul" ? ["false", "true"] : optionsOf(question);
    const probabilities: Record<string, number> = {};
    let top = keys[0] as string;
    for (const key of keys) {
      const p = distribution[key] ?? 0;
      probabilities[key] = p;
      if (p > (probabilities[top] as number)) top = key;
    }
    const value = question.type === "noul" ? top === "true" : top;
    values[field.name] = value;
    fields[field.name] = { value, probability: probabilities[top], probabilities };
  }
  const first = checked.fields[0]?.name;
  const target = first === undefined ? undefined : fields[first];
  if (target && context.fault === "out_of_range") {
    const p = target.probabilities as Record<string, number>;
    const key = Object.keys(p)[0];
    if (key !== undefined) p[key] = 1.25;
  } else if (target && context.fault === "missing_option") {
    const p = target.probabilities as Record<string, number>;
    const key = Object.keys(p).at(-1);
    if (key !== undefined) delete p[key];
  }
  const inputTokens = tokens(checked.context) + tokens(JSON.stringify(checked.fields));
  const total = performance.now() - started;
  const reply = {
    model: context.defaultModel,
    values,
    fields,
    metrics: {
      prompt_tokens: inputTokens,
      timings: { prompt_ms: total, decode_ms: 0, total_ms: total },
      cache: { hit: false, cached_tokens: 0 },
    },
  };
  return {
    ok: true,
    text: breakText(context.fault, JSON.stringify(reply), '"fields":'),
    inputTokens,
  };
}

/** The pcdServer dialect (`POST /v1/pcd/decode`). */
export const pcdDialect: Dialect = {
  name: "pcd",
  error(status, message, headers = {}) {
    return pcdError(status, CODES[status], message, undefined, headers);
  },
  answer,
};
