/**
 * The System One reply schema and its strict answer checks, decided once for every engine that
 * speaks System One. The `SystemOneReply` interface is the public contract (exported from
 * `mod.ts`); its zod schema is the runtime validator of the envelope and is checked against it at
 * compile time (`_SchemasMatch` below), so the two cannot drift.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import { optionsOf, type Question } from "../dataset/mod.ts";
import type { EngineReply, NormalizedAnswer } from "./engine.ts";
import { AnswerValidationError } from "./errors.ts";
import { throwIfNonFinite } from "./_non_finite.ts";

/** Tolerance on the sum of a distribution. */
export const SUM_TOLERANCE = 1e-3;

/** A `fit_mass` below this is flagged as a warning. */
export const LOW_FIT_MASS = 0.6;

/** The System One reply envelope (extra relay fields allowed). */
export const SystemOneReplySchema = z.object({
  model: z.string().optional(),
  answers: z.record(z.string(), z.unknown()),
  usage: z.object({
    input_tokens: z.number().optional(),
    output_tokens: z.number().optional(),
    cost: z.number().optional(),
  }).loose().optional(),
  id: z.string().optional(),
  provider: z.string().optional(),
}).loose();
/** A System One reply envelope; relays may add fields of their own. */
export interface SystemOneReply {
  /** The model that answered, when the server names it. */
  model?: string | undefined;
  /** Answers by question name, checked one by one by {@linkcode parseSystemOneReply}. */
  answers: Record<string, unknown>;
  /** Token counts and cost, when reported (extra fields allowed). */
  usage?: {
    /** Input tokens of the request. */
    input_tokens?: number | undefined;
    /** Output tokens of the reply. */
    output_tokens?: number | undefined;
    /** Cost of the request, as the provider reports it. */
    cost?: number | undefined;
    /** Any other usage field. */
    [key: string]: unknown;
  } | undefined;
  /** The provider's response id (OpenRouter's `id`). */
  id?: string | undefined;
  /** The relay's upstream provider (OpenRouter's `provider`). */
  provider?: string | undefined;
  /** Any other envelope field. */
  [key: string]: unknown;
}

/** The schema's parsed type equals its public interface. */
type _SchemasMatch = [Assert<Equals<z.infer<typeof SystemOneReplySchema>, SystemOneReply>>];

function isProbability(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 && v <= 1;
}

/**
 * Checks a distribution covers exactly `options`, each a probability, summing to 1 ± 1e-3.
 *
 * @param where Path for messages, e.g. `answers.urgency.probabilities`.
 * @param value The value received.
 * @param options The option keys asked.
 * @param issues Problems are pushed here.
 * @param tolerance Largest accepted |sum − 1| (wider only for providers that round).
 * @returns The distribution in option order, or null when invalid.
 */
export function checkDistribution(
  where: string,
  value: unknown,
  options: readonly string[],
  issues: string[],
  tolerance: number = SUM_TOLERANCE,
): Record<string, number> | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    issues.push(`${where}: expected an object of probabilities`);
    return null;
  }
  const record = value as Record<string, unknown>;
  const before = issues.length;
  const extra = Object.keys(record).filter((k) => !options.includes(k));
  const missing = options.filter((k) => !(k in record));
  if (missing.length) issues.push(`${where}: missing ${missing.map((k) => `"${k}"`).join(", ")}`);
  if (extra.length) {
    issues.push(`${where}: unexpected ${extra.map((k) => `"${k}"`).join(", ")}`);
  }
  const out: Record<string, number> = {};
  let sum = 0;
  for (const k of options) {
    if (!(k in record)) continue;
    const p = record[k];
    if (!isProbability(p)) {
      issues.push(`${where}.${k}: ${JSON.stringify(p)} is not a finite number in [0, 1]`);
      continue;
    }
    out[k] = p;
    sum += p;
  }
  if (issues.length === before && Math.abs(sum - 1) > tolerance) {
    issues.push(`${where}: probabilities sum to ${sum.toFixed(6)}, not 1 ± ${tolerance}`);
  }
  return issues.length === before ? out : null;
}

/**
 * Top probability of a distribution (first listed wins a tie).
 *
 * @param dist Distribution in option order.
 * @returns The largest probability.
 */
function topProbability(dist: Record<string, number>): number {
  return Math.max(...Object.values(dist));
}

/** Options of {@linkcode parseSystemOneReply}. */
export interface ParseSystemOneOptions {
  /**
   * Decimals the provider rounds probabilities to (Cloudflare: 4). Each option's rounding may
   * move the sum by half a unit in the last place, so the sum tolerance widens by that much per
   * option; nothing is renormalised.
   * @default undefined (not rounded: 1 ± 1e-3)
   */
  decimals?: number | undefined;
}

/**
 * The sum tolerance for a distribution over `n` options rounded to `decimals` places.
 *
 * @param n Number of options.
 * @param decimals Decimals, or undefined when not rounded.
 * @returns 1e-3 plus n half-units in the last place.
 */
export function sumTolerance(n: number, decimals?: number): number {
  return decimals === undefined ? SUM_TOLERANCE : SUM_TOLERANCE + n * 0.5 * 10 ** -decimals;
}

function parseAnswer(
  name: string,
  raw: unknown,
  question: Question,
  issues: string[],
  decimals: number | undefined,
): NormalizedAnswer | null {
  const where = `answers.${name}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    issues.push(`${where}: expected an object`);
    return null;
  }
  const answer = raw as Record<string, unknown>;
  const type = answer.type === "bool" ? "noul" : answer.type;
  if (type !== undefined && type !== question.type) {
    issues.push(`${where}.type: expected "${question.type}", got ${JSON.stringify(answer.type)}`);
    return null;
  }
  const native = typeof answer.native === "object" && answer.native !== null &&
      !Array.isArray(answer.native)
    ? answer.native as Record<string, unknown>
    : undefined;
  let probabilities: Record<string, number> | null;
  if (question.type === "noul") {
    const p = answer.noul;
    if (!isProbability(p)) {
      issues.push(`${where}.noul: ${JSON.stringify(p)} is not a finite number in [0, 1]`);
      return null;
    }
    probabilities = { true: p, false: 1 - p };
  } else {
    const options = optionsOf(question);
    probabilities = checkDistribution(
      `${where}.probabilities`,
      answer.probabilities,
      options,
      issues,
      sumTolerance(options.length, decimals),
    );
    if (!probabilities) return null;
  }
  const out: NormalizedAnswer = {
    type: question.type,
    probabilities,
    probability: topProbability(probabilities),
    calibrated: true,
  };
  if (native) {
    out.native = native;
    const fit = native.fit_mass;
    if (typeof fit === "number" && fit < LOW_FIT_MASS) {
      out.warnings = [`low fit_mass ${fit.toFixed(2)}: no level describes the state well`];
    }
  }
  return out;
}

function strictEnvelope(body: unknown): SystemOneReply {
  const envelope = SystemOneReplySchema.safeParse(body);
  if (!envelope.success) {
    // Without an `answers` object the body is not a System One reply at all.
    const answers = (body as { answers?: unknown } | null)?.answers;
    const notAReply = typeof answers !== "object" || answers === null || Array.isArray(answers);
    throw new AnswerValidationError(
      envelope.error.issues.map((i) => `${i.path.join(".") || "reply"}: ${i.message}`),
      { notAReply },
    );
  }
  return envelope.data;
}

function toEngineReply(
  reply: SystemOneReply,
  answers: Record<string, NormalizedAnswer>,
): EngineReply {
  const out: EngineReply = { answers };
  if (reply.model !== undefined) out.model = reply.model;
  if (reply.usage?.input_tokens !== undefined) out.inputTokens = reply.usage.input_tokens;
  if (reply.usage?.output_tokens !== undefined) out.outputTokens = reply.usage.output_tokens;
  if (reply.usage?.cost !== undefined) out.cost = reply.usage.cost;
  if (reply.id !== undefined) out.responseId = reply.id;
  if (reply.provider !== undefined) out.provider = reply.provider;
  return out;
}

/**
 * Validates a System One reply strictly: the zod envelope, then every question asked answered
 * with its type, every probability finite in [0, 1], choice/score distributions covering exactly
 * the options asked and summing to 1 ± 1e-3. Nothing is renormalised.
 *
 * @param body The parsed JSON reply.
 * @param questions The questions asked.
 * @param options Rounding the provider applies.
 * @returns The normalised reply.
 * @throws {AnswerValidationError} With every problem found.
 */
export function parseSystemOneReply(
  body: unknown,
  questions: Record<string, Question>,
  options: ParseSystemOneOptions = {},
): EngineReply {
  const reply = strictEnvelope(body);
  const issues: string[] = [];
  const answers: Record<string, NormalizedAnswer> = {};
  for (const [name, question] of Object.entries(questions)) {
    if (!(name in reply.answers)) {
      issues.push(`answers.${name}: missing`);
      continue;
    }
    const parsed = parseAnswer(name, reply.answers[name], question, issues, options.decimals);
    if (parsed) answers[name] = parsed;
  }
  if (issues.length) throw new AnswerValidationError(issues);
  return toEngineReply(reply, answers);
}

/**
 * Parses JSON text, turning a syntax error into an `AnswerValidationError`.
 *
 * @param text Body text.
 * @returns The parsed value.
 * @throws {AnswerValidationError} When the text is not JSON (`notAReply`).
 */
export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throwIfNonFinite(text);
    throw new AnswerValidationError([
      `reply: body is not valid JSON (${text.length} bytes, starts ${
        JSON.stringify(text.slice(0, 40))
      })`,
    ], { notAReply: true });
  }
}
