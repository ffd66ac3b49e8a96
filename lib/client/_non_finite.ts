/**
 * Private: a reply body that fails `JSON.parse` because it holds `NaN`, `Infinity` or
 * `-Infinity` (as Python's `json.dumps` writes a non-finite float unless `allow_nan=False`). Such a
 * body comes from a decision server with a broken number, not from a server of another kind, so
 * it is a malformed answer with its own message rather than a sign to check `--base-url`.
 *
 * @module
 */
import { AnswerValidationError } from "./errors.ts";

/** A non-finite literal outside the strings of a JSON text. */
export interface NonFiniteLiteral {
  /** The literal as written. */
  literal: "NaN" | "Infinity" | "-Infinity";
  /** Its offset in the text (UTF-16 code units). */
  offset: number;
}

const LITERALS = ["-Infinity", "Infinity", "NaN"] as const;

/**
 * Finds the first `NaN`, `Infinity` or `-Infinity` written as a value (outside every string).
 *
 * @param text A JSON-like text.
 * @returns The literal and its offset, or null when there is none.
 * @example
 * ```ts
 * import { findNonFinite } from "./_non_finite.ts";
 * findNonFinite('{"p": "NaN", "q": NaN}'); // { literal: "NaN", offset: 18 }
 * ```
 */
export function findNonFinite(text: string): NonFiniteLiteral | null {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2d || c === 0x49 || c === 0x4e) { // "-", "I", "N"
      for (const literal of LITERALS) {
        if (text.startsWith(literal, i)) return { literal, offset: i };
      }
    }
  }
  return null;
}

/**
 * Throws the malformed-answer error for a body that is not JSON because it holds a non-finite
 * number; returns when the body holds none (the caller reports it as not JSON at all).
 *
 * @param text A body `JSON.parse` refused.
 * @throws {AnswerValidationError} When the body holds `NaN`, `Infinity` or `-Infinity` (not
 *   `notAReply`: the server speaks the format, one of its numbers is broken).
 */
export function throwIfNonFinite(text: string): void {
  const found = findNonFinite(text);
  if (found === null) return;
  const context = text.slice(Math.max(0, found.offset - 30), found.offset + found.literal.length);
  throw new AnswerValidationError([
    `reply: body is not valid JSON: it holds ${found.literal} at character ${found.offset} (${
      JSON.stringify(context)
    }), which JSON has no value for; the server computed a probability that is not a finite number`,
  ]);
}
