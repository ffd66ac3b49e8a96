/**
 * Translation of a System One request for pcdServer, with every pcdServer limit checked
 * before anything is sent: the state becomes `context` (JSON text), each question becomes a field.
 *
 * - choice → choices are the option names; the description is the instructions followed by one
 *   `name: description` line per option that has a description;
 * - noul → choices exactly `[false, true]`; the `true:` / `false:` criteria lines follow the
 *   instructions;
 * - score → choices `"0"`, `"1"`, …; one `level: text` line per level follows the instructions.
 *
 * A description longer than 1,024 UTF-8 bytes is clipped there (never inside a character). The
 * instructions themselves are never clipped: a question whose instructions alone exceed the limit,
 * like a state over 64 KiB, is refused with a `RangeError` naming the limit.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import { clipUtf8, utf8Length } from "./_utf8.ts";

/** pcdServer's request limits. */
export const PCD_LIMITS = {
  /** Largest `context`, in UTF-8 bytes (64 KiB). */
  contextBytes: 65_536,
  /** Fewest fields per request. */
  minFields: 1,
  /** Most fields per request. */
  maxFields: 63,
  /** Longest field name, in UTF-8 bytes. */
  nameBytes: 128,
  /** Longest field description, in UTF-8 bytes. */
  descriptionBytes: 1_024,
  /** Fewest choices per field. */
  minChoices: 2,
  /** Most choices per field. */
  maxChoices: 256,
  /** Longest choice, in UTF-8 bytes. */
  choiceBytes: 256,
} as const;

/** One pcdServer field. */
export interface PcdField {
  /** Field name (the question's name). */
  name: string;
  /** Instructions plus folded option or level texts, at most 1,024 bytes. */
  description: string;
  /** Allowed values: strings, or exactly `[false, true]` for a yes/no question. */
  choices: string[] | [false, true];
}

/** A pcdServer `POST /v1/pcd/decode` body. */
export interface PcdRequest {
  /** The state as text (JSON text for structured state). */
  context: string;
  /** One field per question, in question order. */
  fields: PcdField[];
}

/** A translated request and what clipping did to it. */
export interface PcdTranslation {
  /** The body to send. */
  request: PcdRequest;
  /** Question name → bytes of folded description text clipped away (only clipped questions). */
  clipped: Record<string, number>;
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function bytes(n: number): string {
  return `${n.toLocaleString("en-US")} bytes`;
}

/**
 * The `context` pcdServer gets for a state: a string as it is, any other value as its JSON text.
 *
 * @param state The case's state.
 * @returns The context text.
 */
export function pcdContext(state: unknown): string {
  return typeof state === "string" ? state : JSON.stringify(state) ?? "null";
}

function descriptionLines(question: Question): string[] {
  const lines: string[] = [];
  if (question.type === "choice") {
    if (!Array.isArray(question.criteria)) {
      for (const [name, text] of Object.entries(question.criteria)) {
        if (text) lines.push(`${name}: ${text}`);
      }
    }
  } else if (question.type === "noul") {
    if (question.criteria) {
      for (const [name, text] of Object.entries(question.criteria)) {
        if (text) lines.push(`${name}: ${text}`);
      }
    }
  } else {
    question.criteria.forEach((text, level) => lines.push(`${level}: ${text}`));
  }
  return lines;
}

function choicesOf(name: string, question: Question): string[] | [false, true] {
  if (question.type === "noul") return [false, true];
  const choices = question.type === "score"
    ? question.criteria.map((_, level) => String(level))
    : Array.isArray(question.criteria)
    ? [...question.criteria]
    : Object.keys(question.criteria);
  const where = `Cannot translate question "${name}" for pcdServer`;
  if (choices.length < PCD_LIMITS.minChoices || choices.length > PCD_LIMITS.maxChoices) {
    throw new RangeError(
      `${where}: it has ${choices.length} options; a pcdServer field takes ${PCD_LIMITS.minChoices}–${PCD_LIMITS.maxChoices} choices`,
    );
  }
  const seen = new Set<string>();
  for (const choice of choices) {
    const size = utf8Length(choice);
    if (size > PCD_LIMITS.choiceBytes) {
      throw new RangeError(
        `${where}: option ${quoted(choice)} is ${bytes(size)}, over pcdServer's limit of ${
          bytes(PCD_LIMITS.choiceBytes)
        } per choice`,
      );
    }
    if (seen.has(choice)) {
      throw new RangeError(
        `${where}: option ${quoted(choice)} is listed twice; pcdServer's choices must be distinct`,
      );
    }
    seen.add(choice);
  }
  return choices;
}

/**
 * Translates one question into a pcdServer field.
 *
 * @param name The question's name.
 * @param question The question.
 * @returns The field and the number of description bytes clipped away (0 when none).
 * @throws {RangeError} When the name, the instructions or the options break a pcdServer limit.
 * @example
 * ```ts
 * import { pcdField } from "./pcd_translate.ts";
 * const { field } = pcdField("spam", {
 *   type: "noul",
 *   instructions: "Is this message spam?",
 *   criteria: { true: "Unsolicited advertising", false: "A legitimate conversation" },
 * });
 * field.choices; // [false, true]
 * field.description; // "Is this message spam?\ntrue: Unsolicited advertising\nfalse: A legitimate conversation"
 * ```
 */
export function pcdField(name: string, question: Question): { field: PcdField; clipped: number } {
  const where = `Cannot translate question "${name}" for pcdServer`;
  const nameSize = utf8Length(name);
  if (nameSize === 0 || nameSize > PCD_LIMITS.nameBytes) {
    throw new RangeError(
      `${where}: the name is ${bytes(nameSize)}; pcdServer's field names are 1–${
        bytes(PCD_LIMITS.nameBytes)
      }`,
    );
  }
  const instructionsSize = utf8Length(question.instructions);
  if (instructionsSize > PCD_LIMITS.descriptionBytes) {
    throw new RangeError(
      `${where}: its instructions are ${
        bytes(instructionsSize)
      }, over pcdServer's field description limit of ${
        bytes(PCD_LIMITS.descriptionBytes)
      } (instructions are never clipped; shorten them)`,
    );
  }
  const choices = choicesOf(name, question);
  const full = [question.instructions, ...descriptionLines(question)].join("\n");
  const description = clipUtf8(full, PCD_LIMITS.descriptionBytes);
  return {
    field: { name, description, choices },
    clipped: utf8Length(full) - utf8Length(description),
  };
}

/**
 * Translates a case's state and questions into a pcdServer request, checking every limit first.
 *
 * @param state The state (a string is sent as it is, anything else as JSON text).
 * @param questions The questions, in request order.
 * @returns The request and the questions whose folded descriptions were clipped.
 * @throws {RangeError} Naming the limit when the request cannot fit: context over 64 KiB, fewer
 *   than 1 or more than 63 questions, a name over 128 bytes, instructions over 1,024 bytes, fewer
 *   than 2 or more than 256 options, an option over 256 bytes or listed twice. Nothing is
 *   truncated to make it fit.
 * @example
 * ```ts
 * import { translateForPcd } from "./pcd_translate.ts";
 * const { request } = translateForPcd({ ticket: "Where is my parcel?" }, {
 *   team: { type: "choice", instructions: "Which team?", criteria: { billing: "Charges", shipping: null } },
 * });
 * request.context; // '{"ticket":"Where is my parcel?"}'
 * request.fields[0]?.description; // "Which team?\nbilling: Charges"
 * ```
 */
export function translateForPcd(
  state: unknown,
  questions: Record<string, Question>,
): PcdTranslation {
  const names = Object.keys(questions);
  if (names.length < PCD_LIMITS.minFields || names.length > PCD_LIMITS.maxFields) {
    throw new RangeError(
      `Cannot send the case to pcdServer: it asks ${names.length} questions; a pcdServer request takes ${PCD_LIMITS.minFields}–${PCD_LIMITS.maxFields} fields`,
    );
  }
  const context = pcdContext(state);
  const contextSize = utf8Length(context);
  if (contextSize > PCD_LIMITS.contextBytes) {
    throw new RangeError(
      `Cannot send the case to pcdServer: its context is ${
        bytes(contextSize)
      } of JSON text, over pcdServer's limit of ${
        bytes(PCD_LIMITS.contextBytes)
      } (64 KiB); the state is never truncated — shorten it or use a System One engine`,
    );
  }
  const fields: PcdField[] = [];
  const clipped: Record<string, number> = {};
  for (const name of names) {
    const translated = pcdField(name, questions[name] as Question);
    fields.push(translated.field);
    if (translated.clipped > 0) clipped[name] = translated.clipped;
  }
  return { request: { context, fields }, clipped };
}
