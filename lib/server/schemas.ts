/**
 * Zod schemas for what the reference server accepts and answers: the System One request body
 * (validated the way llama-server does) and the llama-style error envelope.
 *
 * @module
 */
import * as z from "zod";
import type { Question } from "../dataset/mod.ts";

/** Most options a choice question may list (llama-server's limit). */
export const MAX_OPTIONS = 255;
/** Fewest and most levels a score question may list. */
export const SCORE_LEVELS = { min: 2, max: 10 } as const;
/** Most `images` (alias `files`) a request may carry. */
export const MAX_IMAGES = 8;

/** "required:" for a missing value, "expected" for a wrong one. */
function requiredOr(input: unknown): string {
  return input === undefined ? "required:" : "expected";
}

const TYPES_TEXT = `"choice", "score", "noul" or "bool"`;

const instructions = z.string({
  error: (issue) =>
    issue.input === undefined ? "required: a non-empty string" : "expected a non-empty string",
}).min(1, { error: "expected a non-empty string" });

const CHOICE_TEXT = "a list of option names or an object mapping option names to descriptions";

const choiceCriteria = z.unknown().transform(
  (criteria, ctx): string[] | Record<string, string | null> => {
    const fail = (message: string, path: PropertyKey[] = []): never => {
      ctx.addIssue({ code: "custom", message, path });
      return z.NEVER;
    };
    let names: string[];
    if (Array.isArray(criteria)) {
      const seen = new Set<string>();
      for (let i = 0; i < criteria.length; i++) {
        const name: unknown = criteria[i];
        if (typeof name !== "string" || name === "") {
          return fail("expected a non-empty option name (a string)", [i]);
        }
        if (seen.has(name)) return fail(`duplicate option "${name}"`, [i]);
        seen.add(name);
      }
      names = criteria as string[];
    } else if (typeof criteria === "object" && criteria !== null) {
      names = Object.keys(criteria);
      for (const name of names) {
        const description: unknown = (criteria as Record<string, unknown>)[name];
        if (name === "") return fail("expected non-empty option names", [name]);
        if (description !== null && typeof description !== "string") {
          return fail("expected a description (a string or null)", [name]);
        }
      }
    } else {
      return fail(`${requiredOr(criteria)} ${CHOICE_TEXT}`);
    }
    if (names.length < 2 || names.length > MAX_OPTIONS) {
      return fail(`expected 2-${MAX_OPTIONS} options, got ${names.length}`);
    }
    return criteria as string[] | Record<string, string | null>;
  },
);

const LEVELS_RANGE = `${SCORE_LEVELS.min}-${SCORE_LEVELS.max}`;
const LEVELS_TEXT = `expected ${LEVELS_RANGE} levels`;

const scoreCriteria = z.unknown().transform((criteria, ctx): string[] => {
  const fail = (message: string, path: PropertyKey[] = []): never => {
    ctx.addIssue({ code: "custom", message, path });
    return z.NEVER;
  };
  let levels: unknown[];
  if (Array.isArray(criteria)) {
    levels = criteria;
  } else if (typeof criteria === "object" && criteria !== null) {
    const record = criteria as Record<string, unknown>;
    const keys = Object.keys(record);
    levels = [];
    for (let i = 0; i < keys.length; i++) {
      if (!(String(i) in record)) {
        return fail(`expected levels keyed "0".."${keys.length - 1}", missing "${i}"`);
      }
      levels.push(record[String(i)]);
    }
  } else {
    return fail(
      `${requiredOr(criteria)} a list of ${LEVELS_RANGE} level descriptions, level 0 first`,
    );
  }
  for (let i = 0; i < levels.length; i++) {
    if (typeof levels[i] !== "string") {
      return fail("expected a level description (a string)", [
        Array.isArray(criteria) ? i : String(i),
      ]);
    }
  }
  if (levels.length < SCORE_LEVELS.min || levels.length > SCORE_LEVELS.max) {
    return fail(`${LEVELS_TEXT}, got ${levels.length}`);
  }
  return levels as string[];
});

const noulCriteria = z.strictObject({
  true: z.string({ error: "expected a description (a string)" }),
  false: z.string({ error: "expected a description (a string)" }),
}, { error: `expected an object with "true" and "false" descriptions` });

const unknownField = { error: "unknown field" } as const;

const choiceQuestion = z.strictObject({
  type: z.literal("choice"),
  instructions,
  criteria: choiceCriteria,
}, unknownField);

const scoreQuestion = z.strictObject({
  type: z.literal("score"),
  instructions,
  criteria: scoreCriteria,
}, unknownField);

const noulQuestion = z.strictObject({
  type: z.enum(["noul", "bool"]),
  instructions,
  criteria: noulCriteria.optional(),
}, unknownField);

/**
 * One question as a client may send it; parsing normalises `bool` to `noul` and a score's
 * numbered-object criteria to a list, so the output is the dataset's {@link Question}.
 */
export const RequestQuestionSchema: z.ZodType<Question, unknown> = z.discriminatedUnion("type", [
  choiceQuestion,
  scoreQuestion,
  noulQuestion,
], {
  error: (issue) =>
    issue.code === "invalid_union" && issue.note === "No matching discriminator"
      ? `expected ${TYPES_TEXT}`
      : "expected an object with type, instructions and criteria",
}).transform((question): Question => {
  if (question.type === "choice") {
    return { type: "choice", instructions: question.instructions, criteria: question.criteria };
  }
  if (question.type === "score") {
    return { type: "score", instructions: question.instructions, criteria: question.criteria };
  }
  return question.criteria === undefined
    ? { type: "noul", instructions: question.instructions }
    : { type: "noul", instructions: question.instructions, criteria: question.criteria };
});

const images = z.array(
  z.string({ error: "expected a data: URL (a string)" }).startsWith("data:", {
    error: "expected a data: URL",
  }),
  { error: `expected a list of at most ${MAX_IMAGES} data: URLs` },
).max(MAX_IMAGES, { error: `expected at most ${MAX_IMAGES} data: URLs` });

/**
 * The System One request body: `model` (optional string), `state` (required: a string or any
 * JSON value but null), `questions` (a non-empty map name → question), `images` or its alias
 * `files` (at most 8 `data:` URLs). Any other field is refused.
 */
export const SystemOneRequestSchema = z.strictObject({
  model: z.string({ error: "expected a string" }).optional(),
  state: z.custom<unknown>((value) => value !== undefined && value !== null, {
    error: "required: a string or any JSON value (not null)",
  }),
  questions: z.record(
    z.string().min(1),
    RequestQuestionSchema,
    {
      error: (issue) =>
        issue.code === "invalid_key"
          ? "expected a non-empty question name"
          : `${requiredOr(issue.input)} an object mapping question names to questions`,
    },
  ).refine((questions) => Object.keys(questions).length > 0, {
    error: "expected at least one question",
  }),
  images: images.optional(),
  files: images.optional(),
}, {
  error: (issue) =>
    issue.code === "unrecognized_keys"
      ? "unknown field: a System One request takes only model, state, questions, images (alias files)"
      : "expected a JSON object",
}).refine((body) => body.images === undefined || body.files === undefined, {
  error: "send either images or its alias files, not both",
  path: ["files"],
});

/** A validated System One request (questions normalised to the dataset's shape). */
export interface SystemOneRequest {
  /** The model asked for, when sent. */
  model?: string | undefined;
  /** The state: a string or any JSON value. */
  state: unknown;
  /** The questions by name, in request order. */
  questions: Record<string, Question>;
  /** Image `data:` URLs. */
  images?: string[] | undefined;
  /** Alias of `images`. */
  files?: string[] | undefined;
}

/** The llama-style error envelope: `{"error": {"message", "type", "code"}}`. */
export const ErrorBodySchema: z.ZodType<ErrorBody> = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.number().int(),
  }),
});
/** A llama-style error body. */
export interface ErrorBody {
  /** The error. */
  error: {
    /** What went wrong, naming the field. */
    message: string;
    /** llama-server's error type, e.g. `invalid_request_error`. */
    type: string;
    /** The HTTP status. */
    code: number;
  };
}

/**
 * Renders zod issues as one message naming each field, e.g.
 * `questions.urgency.criteria: expected 2-10 levels, got 1`.
 *
 * @param error The zod error.
 * @returns The message (at most three issues, then a count of the rest).
 */
export function formatIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    let path = issue.path.reduce<string>((acc, key) => acc + pathPart(acc, key), "");
    if (issue.code === "unrecognized_keys") {
      path = issue.keys.map((key) => path + pathPart(path, key)).join(", ");
    }
    return path === "" ? issue.message : `${path}: ${issue.message}`;
  });
  const rest = error.issues.length - parts.length;
  return rest > 0 ? `${parts.join("; ")} (and ${rest} more)` : parts.join("; ");
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

function pathPart(prefix: string, key: PropertyKey): string {
  if (typeof key === "number") return `[${key}]`;
  const name = String(key);
  if (!IDENTIFIER.test(name)) return `[${JSON.stringify(name)}]`;
  return prefix === "" ? name : `.${name}`;
}
