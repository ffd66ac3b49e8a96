/**
 * A JSON parser that keeps what `JSON.parse` loses: whether a number was written as an int or a
 * float, and the order of object keys (including integer-like ones, which `JSON.parse` moves
 * first). Together with `pyDumps` it reproduces Python's `json.loads` → `json.dumps` round trip.
 *
 * @module
 */
import { PyFloat } from "./python_json.ts";

/** A parsed JSON object: keys in the order written (a repeated key keeps its first position). */
export type PyObject = Map<string, PyParsed>;
/** A value as {@linkcode parsePyJson} returns it. */
export type PyParsed =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | PyParsed[]
  | PyObject;

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new SyntaxError(`Cannot parse JSON: ${what} at position ${this.pos}`);
  }

  skipWhitespace(): void {
    const t = this.text;
    let c = t.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = t.charCodeAt(++this.pos);
  }

  value(): PyParsed {
    this.skipWhitespace();
    const t = this.text;
    const c = t[this.pos];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      case "N":
        return this.literal("NaN", new PyFloat(NaN));
      case "I":
        return this.literal("Infinity", new PyFloat(Infinity));
      default:
        if (c === "-" && t.startsWith("-Infinity", this.pos)) {
          return this.literal("-Infinity", new PyFloat(-Infinity));
        }
        return this.number();
    }
  }

  literal<T extends PyParsed>(word: string, result: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("unexpected token");
    this.pos += word.length;
    return result;
  }

  number(): PyParsed {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail(this.pos >= this.text.length ? "unexpected end" : "unexpected token");
    const lexeme = match[0];
    this.pos += lexeme.length;
    if (match[1] !== undefined || match[2] !== undefined) return new PyFloat(Number(lexeme));
    const n = Number(lexeme);
    return Number.isSafeInteger(n) ? n : BigInt(lexeme);
  }

  string(): string {
    const t = this.text;
    const start = ++this.pos;
    // Fast path: no escapes and no control characters.
    let i = start;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return t.slice(start, i);
      }
      if (c === 0x5c || c < 0x20 || Number.isNaN(c)) break;
      i++;
    }
    const parts: string[] = [t.slice(start, i)];
    this.pos = i;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail("unterminated string");
      if (c === 0x22) {
        this.pos++;
        return parts.join("");
      }
      if (c < 0x20) this.fail("control character in string");
      if (c !== 0x5c) {
        parts.push(t[this.pos++]!);
        continue;
      }
      const e = t[this.pos + 1];
      this.pos += 2;
      switch (e) {
        case '"':
        case "\\":
        case "/":
          parts.push(e);
          break;
        case "b":
          parts.push("\b");
          break;
        case "f":
          parts.push("\f");
          break;
        case "n":
          parts.push("\n");
          break;
        case "r":
          parts.push("\r");
          break;
        case "t":
          parts.push("\t");
          break;
        case "u": {
          const hex = t.slice(this.pos, this.pos + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("invalid \\u escape");
          parts.push(String.fromCharCode(parseInt(hex, 16)));
          this.pos += 4;
          break;
        }
        default:
          this.pos -= 2;
          this.fail("invalid escape");
      }
    }
  }

  array(): PyParsed[] {
    this.pos++;
    const items: PyParsed[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] === "]") {
      this.pos++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.skipWhitespace();
      const c = this.text[this.pos++];
      if (c === "]") return items;
      if (c !== ",") {
        this.pos--;
        this.fail("expected ',' or ']'");
      }
    }
  }

  object(): PyObject {
    this.pos++;
    const map: PyObject = new Map();
    this.skipWhitespace();
    if (this.text[this.pos] === "}") {
      this.pos++;
      return map;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail("expected a string key");
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.pos] !== ":") this.fail("expected ':'");
      this.pos++;
      map.set(key, this.value());
      this.skipWhitespace();
      const c = this.text[this.pos++];
      if (c === "}") return map;
      if (c !== ",") {
        this.pos--;
        this.fail("expected ',' or '}'");
      }
    }
  }
}

/**
 * Parses JSON text the way Python's `json.loads` does, keeping what `pyDumps` needs to write it
 * back byte for byte: objects become `Map`s in key order, numbers written with a fraction or an
 * exponent become {@linkcode PyFloat}, other numbers become `number` (or `bigint` beyond 2^53).
 * Like Python it accepts `NaN`, `Infinity` and `-Infinity`, and a repeated key keeps its first
 * position with its last value.
 *
 * @param text The JSON text.
 * @returns The parsed value.
 * @throws {SyntaxError} When the text is not one JSON value (with the position of the problem).
 * @example
 * ```ts
 * import { parsePyJson } from "./_python_json_parse.ts";
 * import { pyDumps } from "./python_json.ts";
 * const text = '{"1": 1.0, "0": 1e-05}';
 * if (pyDumps(parsePyJson(text)) !== text) throw new Error("round trip changed the text");
 * ```
 */
export function parsePyJson(text: string): PyParsed {
  const parser = new Parser(text);
  const value = parser.value();
  parser.skipWhitespace();
  if (parser.pos !== text.length) parser.fail("extra data");
  return value;
}
