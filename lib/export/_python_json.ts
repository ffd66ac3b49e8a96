/**
 * JSON text exactly as Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))` writes
 * it with its default `ensure_ascii=True`: keys sorted by code point, no spaces, and every
 * character outside printable ASCII written as `\uXXXX` (lowercase hex; a character beyond the
 * Basic Multilingual Plane as its UTF-16 surrogate pair). Every Eval Ever's `sample_hash` is the
 * sha256 of this text.
 *
 * @module
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** A string as Python's `json.dumps` writes it with `ensure_ascii=True`. */
function pythonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i); // UTF-16 code units: astral characters come out as pairs
    const ch = text[i] as string;
    const escape = ESCAPES[ch];
    if (escape !== undefined) out += escape;
    else if (unit >= 0x20 && unit <= 0x7e) out += ch;
    else out += `\\u${unit.toString(16).padStart(4, "0")}`;
  }
  return out + '"';
}

/** Python orders `str` keys by code point (JavaScript's default sort is by UTF-16 unit). */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] as string).codePointAt(0)! - (y[i] as string).codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * Writes a value as Python's `json.dumps(value, sort_keys=True, separators=(",", ":"))`.
 *
 * @param value Strings, integers, booleans, null, arrays and plain objects of them.
 * @returns The JSON text, ASCII only.
 * @throws {TypeError} On a number that is not a safe integer (Python writes floats its own way)
 *   or a value JSON cannot hold.
 * @example
 * ```ts
 * import { pythonJsonDumps } from "./_python_json.ts";
 * const text = pythonJsonDumps({ reference: ["é"], raw: "😀" });
 * if (text !== '{"raw":"\\ud83d\\ude00","reference":["\\u00e9"]}') throw new Error(text);
 * ```
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return pythonString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`Cannot write ${value} as Python does: only integers are supported`);
    }
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => byCodePoint(a, b));
    return `{${entries.map(([k, v]) => `${pythonString(k)}:${pythonJsonDumps(v)}`).join(",")}}`;
  }
  throw new TypeError(`Cannot write a ${typeof value} as JSON`);
}
