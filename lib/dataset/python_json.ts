/**
 * A JSON serializer that writes exactly what Python's `json.dumps(obj, ensure_ascii=False)` writes.
 *
 * The vendored JSONL's sha256 is only meaningful if every byte matches what Python produced:
 * separators `", "` and `": "`, floats in Python's `repr` form (`1.0`, `1e-05`, `1.5e+16`), ints
 * without a fraction, and Python's string escapes. JavaScript numbers do not say whether they were
 * ints or floats, so floats that must print as floats are wrapped in {@linkcode PyFloat}; the
 * parser in `_python_json_parse.ts` produces such values.
 *
 * @module
 */

/**
 * A number that Python holds as a `float`: it prints in `repr` form even when integral (`1.0`).
 *
 * @example
 * ```ts
 * import { PyFloat, pyDumps } from "./python_json.ts";
 * pyDumps([1, new PyFloat(1)]); // "[1, 1.0]"
 * ```
 */
export class PyFloat {
  /** The float's value. */
  readonly value: number;

  /**
   * Wraps a number as a Python float.
   *
   * @param value The float's value.
   */
  constructor(value: number) {
    this.value = value;
  }
}

/**
 * A value {@linkcode pyDumps} can write.
 *
 * A plain `number` prints as a Python int when it is integral and as a float otherwise; `bigint`
 * prints as an int; `PyFloat` always prints as a float. Objects are a `Map` (keys in insertion
 * order) or a plain object (keys in `Object.keys` order, which puts integer-like keys first).
 */
export type PyValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | PyFloat
  | readonly PyValue[]
  | ReadonlyMap<string, PyValue>
  | { readonly [key: string]: PyValue };

/**
 * Formats a number the way Python's `repr(float)` does: the shortest digits that round-trip,
 * fixed notation when the decimal exponent is in [-4, 16), otherwise `d.ddde±XX`.
 *
 * @param x The number.
 * @returns Its Python float representation (`NaN`, `Infinity` and `-Infinity` as `json.dumps`
 * writes them).
 * @example
 * ```ts
 * import { pyFloatRepr } from "./python_json.ts";
 * pyFloatRepr(1); // "1.0"
 * pyFloatRepr(0.00001); // "1e-05"
 * pyFloatRepr(1.5e16); // "1.5e+16"
 * ```
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  // toExponential() without an argument gives the shortest round-trip digits, like Python's repr.
  const [mantissa = "", exponent = "0"] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exp = Number(exponent);
  // Python's decpt: the value is 0.<digits> × 10^decpt.
  const decpt = exp + 1;
  if (decpt > 16 || decpt <= -4) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const expSign = exp < 0 ? "-" : "+";
    return `${sign}${digits[0]}${fraction}e${expSign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (decpt <= 0) return `${sign}0.${"0".repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${"0".repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

// deno-lint-ignore no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/g;

function escapeChar(ch: string): string {
  return ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * Quotes a string the way Python's `json.dumps(s, ensure_ascii=False)` does: `"` and `\` and the
 * control characters below U+0020 are escaped (`\n`, `\r`, `\t`, `\b`, `\f`, others as `\u00xx`
 * in lowercase hex); every other character is written as is.
 *
 * @param s The string.
 * @returns The quoted JSON string.
 * @example
 * ```ts
 * import { pyQuote } from "./python_json.ts";
 * pyQuote('é "x"\n'); // "\"é \\\"x\\\"\\n\""
 * ```
 */
export function pyQuote(s: string): string {
  return `"${s.replace(NEEDS_ESCAPE, escapeChar)}"`;
}

function pyInt(n: number | bigint): string {
  return typeof n === "bigint" ? n.toString() : BigInt(n).toString();
}

function write(value: PyValue, out: string[]): void {
  if (value === null) {
    out.push("null");
  } else if (typeof value === "string") {
    out.push(pyQuote(value));
  } else if (typeof value === "number") {
    out.push(Number.isInteger(value) ? pyInt(value) : pyFloatRepr(value));
  } else if (typeof value === "boolean") {
    out.push(value ? "true" : "false");
  } else if (typeof value === "bigint") {
    out.push(pyInt(value));
  } else if (value instanceof PyFloat) {
    out.push(pyFloatRepr(value.value));
  } else if (Array.isArray(value)) {
    writeArray(value as readonly PyValue[], out);
  } else if (value instanceof Map) {
    writeEntries((value as ReadonlyMap<string, PyValue>).entries(), out);
  } else if (typeof value === "object" && isPlainObject(value)) {
    writeEntries(Object.entries(value), out);
  } else {
    throw new TypeError(
      `Cannot serialize value: type '${describe(value)}' is not JSON serializable`,
    );
  }
}

function writeArray(items: readonly PyValue[], out: string[]): void {
  out.push("[");
  items.forEach((item, i) => {
    if (i > 0) out.push(", ");
    write(item, out);
  });
  out.push("]");
}

function writeEntries(entries: Iterable<[string, PyValue]>, out: string[]): void {
  out.push("{");
  let first = true;
  for (const [key, item] of entries) {
    if (typeof key !== "string") {
      throw new TypeError(`Cannot serialize object key: type '${describe(key)}' is not a string`);
    }
    if (!first) out.push(", ");
    first = false;
    out.push(pyQuote(key), ": ");
    write(item, out);
  }
  out.push("}");
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "object" && value !== null) return value.constructor?.name ?? "object";
  return typeof value;
}

/**
 * Serializes a value exactly as Python's `json.dumps(value, ensure_ascii=False)` would.
 *
 * @param value The value: see {@linkcode PyValue} for how numbers and key order are decided.
 * @returns The JSON text, on one line.
 * @throws {TypeError} When the value holds something JSON cannot represent (`undefined`, a
 * function, a class instance other than `Map` and `PyFloat`) or a `Map` has a non-string key.
 * @example
 * ```ts
 * import { PyFloat, pyDumps, type PyValue } from "./python_json.ts";
 * const text = pyDumps(new Map<string, PyValue>([["b", 0.00001], ["a", new PyFloat(2)]]));
 * if (text !== '{"b": 1e-05, "a": 2.0}') throw new Error(text);
 * ```
 */
export function pyDumps(value: PyValue): string {
  const out: string[] = [];
  write(value, out);
  return out.join("");
}
