/**
 * Features of a decision state: the JSON value flattened into named path/value features, hashed
 * into a fixed-size sparse vector and normalised to unit length.
 *
 * Paths join object keys with `.` and write array elements as `[]` (so every element of an array
 * shares one path). From each leaf:
 *
 * - string: the token `path=value` (lowercased, when at most 64 characters) and, when it has a
 *   space, one `path~word` token per lowercase word (letters and digits), plus `path~w1_w2`
 *   word pairs when `bigrams` is on;
 * - number: the scaled value `path` = sign(x)·ln(1 + |x|)·`numericScale`, the magnitude bucket
 *   `path#b=±floor(log2(1 + |x|))`, and for integers in [-10, 10] the exact token `path=#x`;
 * - boolean and null: `path=true`, `path=false`, `path=null`;
 * - array: its length as the token `path#n=<length>` (lengths above 10 share `>10`).
 *
 * When `relations` is on, a few cross-field features follow: `eq:A|B` when the same string (at
 * least 3 characters) sits at two different paths (an invoice id among prior invoice ids),
 * `cmp:A|B=<bucket>` comparing two numbers whose last keys match (`qty` and `received_qty`,
 * `total_usd` and the sum of `lines[].total_usd`) by relative difference d = (a − b)/max(|a|, |b|)
 * (`eq`, then sign and size: 0 below 0.1%, 1 below 1%, 2 below 5%, 3 below 20%, 4 below 50%, 5),
 * and `sum:path` leaves adding up a numeric field over an array of objects (compared, not
 * emitted). Array items at different positions are not compared with each other.
 *
 * A repeated feature adds up (a word said twice counts 2). Hashing: 32-bit FNV-1a of the feature
 * name's UTF-8 bytes modulo `dimension`; colliding features add up too.
 *
 * @module
 */
import { fnv1a32 } from "./_hash.ts";

/** Options of {@linkcode featurize} and {@linkcode featureTokens}. */
export interface FeatureOptions {
  /**
   * Number of hash buckets; must be a power of two between 2^8 and 2^30.
   *
   * @default {262144}
   */
  dimension?: number;
  /**
   * Factor applied to sign(x)·ln(1 + |x|) for a number's value feature.
   *
   * @default {0.25}
   */
  numericScale?: number;
  /**
   * Also emit pairs of consecutive words of free text.
   *
   * @default {false}
   */
  bigrams?: boolean;
  /**
   * Also emit the cross-field equality and comparison features.
   *
   * @default {true}
   */
  relations?: boolean;
}

/** A sparse vector: sorted distinct bucket indices and their values. */
export interface SparseVector {
  /** Bucket indices, ascending, without repeats. */
  indices: Uint32Array;
  /** The value at each index. */
  values: Float64Array;
}

/** Default number of hash buckets (2^18). */
export const DEFAULT_DIMENSION = 262144;

const MAX_TOKEN_CHARS = 64;
const MAX_EXACT_INT = 10;
const MAX_EXACT_LENGTH = 10;
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

/** Where the walk sends features: named (for reading) or hashed (for the model). */
interface Sink {
  /** Adds the feature named `prefix + suffix`. */
  add(prefix: string, suffix: string, value: number): void;
  /** Adds `prefix + suffix` with value 1 for each suffix. */
  addSuffixes(prefix: string, suffixes: readonly string[]): void;
}

class NameSink implements Sink {
  readonly tokens = new Map<string, number>();
  add(prefix: string, suffix: string, value: number): void {
    const name = prefix + suffix;
    this.tokens.set(name, (this.tokens.get(name) ?? 0) + value);
  }
  addSuffixes(prefix: string, suffixes: readonly string[]): void {
    for (const suffix of suffixes) this.add(prefix, suffix, 1);
  }
}

// Paths repeat across states, so their hashes are memoised (a pure cache: results never depend
// on it); it is emptied when it grows past PREFIX_CACHE_SIZE entries.
const PREFIX_CACHE_SIZE = 4096;
const prefixCache = new Map<string, number>();

function prefixHash(prefix: string): number {
  let hash = prefixCache.get(prefix);
  if (hash === undefined) {
    if (prefixCache.size >= PREFIX_CACHE_SIZE) prefixCache.clear();
    hash = fnv1a32(prefix);
    prefixCache.set(prefix, hash);
  }
  return hash;
}

class HashSink implements Sink {
  readonly buckets = new Map<number, number>();
  constructor(readonly mask: number) {}
  private put(bucket: number, value: number): void {
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + value);
  }
  add(prefix: string, suffix: string, value: number): void {
    this.put(fnv1a32(suffix, prefixHash(prefix)) & this.mask, value);
  }
  addSuffixes(prefix: string, suffixes: readonly string[]): void {
    const seed = prefixHash(prefix);
    for (const suffix of suffixes) this.put(fnv1a32(suffix, seed) & this.mask, 1);
  }
}

interface NumericLeaf {
  pattern: string;
  key: string;
  index: number;
  value: number;
}

interface Walk {
  sink: Sink;
  strings: Map<string, Set<string>>;
  numbers: NumericLeaf[];
  numericScale: number;
  bigrams: boolean;
  relations: boolean;
}

function add(walk: Walk, prefix: string, suffix: string, value: number): void {
  walk.sink.add(prefix, suffix, value);
}

/**
 * The words of a text: maximal runs of letters and digits (Unicode `L` and `N`), the same as
 * matching `/[\p{L}\p{N}]+/gu`, with a fast path for ASCII.
 *
 * @param text The text (already lowercased, if wanted).
 * @returns The words in order.
 * @example
 * ```ts
 * import { wordsOf } from "./features.ts";
 * const words = wordsOf("i’ve been charged twice: €40!");
 * if (words.join(" ") !== "i ve been charged twice 40") throw new Error("words");
 * ```
 */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    let width = 1;
    let isWord: boolean;
    if (code < 128) {
      isWord = (code >= 97 && code <= 122) || (code >= 48 && code <= 57) ||
        (code >= 65 && code <= 90);
    } else {
      const point = text.codePointAt(i) as number;
      width = point > 0xffff ? 2 : 1;
      isWord = WORD_CHAR.test(String.fromCodePoint(point));
    }
    if (isWord) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(text.slice(start, i));
      start = -1;
    }
    i += width;
  }
  if (start >= 0) out.push(text.slice(start));
  return out;
}

function lastKey(pattern: string): string {
  const dot = pattern.lastIndexOf(".");
  return pattern.slice(dot + 1);
}

function addNumber(walk: Walk, path: string, x: number, index: number): void {
  if (!Number.isFinite(x)) {
    add(walk, path, "=nonfinite", 1);
    return;
  }
  const magnitude = Math.log1p(Math.abs(x));
  if (x !== 0) add(walk, path, "", Math.sign(x) * magnitude * walk.numericScale);
  const bucket = Math.floor(Math.log2(1 + Math.abs(x)));
  add(walk, path, `#b=${x < 0 ? -bucket : bucket}`, 1);
  if (Number.isInteger(x) && Math.abs(x) <= MAX_EXACT_INT) add(walk, path, `=#${x}`, 1);
  if (walk.relations) walk.numbers.push({ pattern: path, key: lastKey(path), index, value: x });
}

function addString(walk: Walk, path: string, text: string): void {
  const lower = text.toLowerCase();
  if (lower.length <= MAX_TOKEN_CHARS) add(walk, path, `=${lower}`, 1);
  if (walk.relations && lower.length >= 3) {
    const paths = walk.strings.get(lower);
    if (paths) paths.add(path);
    else walk.strings.set(lower, new Set([path]));
  }
  if (!/\s/.test(lower)) return;
  const words = wordsOf(lower);
  walk.sink.addSuffixes(`${path}~`, words);
  if (walk.bigrams) {
    walk.sink.addSuffixes(`${path}~`, words.slice(1).map((word, i) => `${words[i]}_${word}`));
  }
}

function visit(walk: Walk, path: string, value: unknown, index: number): void {
  if (value === null || value === undefined) {
    add(walk, path, "=null", 1);
  } else if (typeof value === "boolean") {
    add(walk, path, `=${value}`, 1);
  } else if (typeof value === "number") {
    addNumber(walk, path, value, index);
  } else if (typeof value === "string") {
    addString(walk, path, value);
  } else if (Array.isArray(value)) {
    const n = value.length;
    add(walk, path, `#n=${n > MAX_EXACT_LENGTH ? ">10" : n}`, 1);
    const element = `${path}[]`;
    const sums = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const item: unknown = value[i];
      visit(walk, element, item, i);
      if (walk.relations && item !== null && typeof item === "object" && !Array.isArray(item)) {
        for (const [key, field] of Object.entries(item)) {
          if (typeof field === "number" && Number.isFinite(field)) {
            sums.set(key, (sums.get(key) ?? 0) + field);
          }
        }
      }
    }
    for (const [key, sum] of sums) {
      walk.numbers.push({ pattern: `sum:${element}.${key}`, key, index: -1, value: sum });
    }
  } else if (typeof value === "object") {
    for (const [key, field] of Object.entries(value)) {
      visit(walk, path === "" ? key : `${path}.${key}`, field, index);
    }
  } else {
    add(walk, path, `=${typeof value}`, 1);
  }
}

function comparable(a: NumericLeaf, b: NumericLeaf): boolean {
  if (a.pattern === b.pattern) return false;
  if (a.index >= 0 && b.index >= 0 && a.index !== b.index) return false;
  return a.key === b.key || a.key.endsWith(`_${b.key}`) || b.key.endsWith(`_${a.key}`);
}

function differenceBucket(a: number, b: number): string {
  const scale = Math.max(Math.abs(a), Math.abs(b));
  if (scale === 0 || Math.abs(a - b) <= 1e-9 * scale) return "eq";
  const d = (a - b) / scale;
  const size = Math.abs(d);
  const level = size < 0.001
    ? 0
    : size < 0.01
    ? 1
    : size < 0.05
    ? 2
    : size < 0.2
    ? 3
    : size < 0.5
    ? 4
    : 5;
  return `${d < 0 ? "-" : "+"}${level}`;
}

function addRelations(walk: Walk): void {
  for (const paths of walk.strings.values()) {
    if (paths.size < 2) continue;
    const sorted = [...paths].sort();
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) add(walk, "eq:", `${sorted[i]}|${sorted[j]}`, 1);
    }
  }
  const leaves = walk.numbers;
  for (let i = 0; i < leaves.length; i++) {
    for (let j = i + 1; j < leaves.length; j++) {
      const a = leaves[i] as NumericLeaf;
      const b = leaves[j] as NumericLeaf;
      if (!comparable(a, b)) continue;
      const [first, second] = a.pattern < b.pattern ? [a, b] : [b, a];
      add(
        walk,
        "cmp:",
        `${first.pattern}|${second.pattern}=${differenceBucket(first.value, second.value)}`,
        1,
      );
    }
  }
}

/**
 * The named features of a state before hashing, in the order they were first produced.
 *
 * @param state Any JSON value (a decision state).
 * @param options Feature options (`dimension` is ignored here).
 * @returns Feature name → value (repeated features add up).
 * @example
 * ```ts
 * import { featureTokens } from "./features.ts";
 * const tokens = featureTokens({ tier: "Gold", seats: 3 });
 * if (tokens.get("tier=gold") !== 1 || tokens.get("seats=#3") !== 1) throw new Error("tokens");
 * ```
 */
export function featureTokens(state: unknown, options: FeatureOptions = {}): Map<string, number> {
  const sink = new NameSink();
  walkState(state, sink, options);
  return sink.tokens;
}

function walkState(state: unknown, sink: Sink, options: FeatureOptions): void {
  const walk: Walk = {
    sink,
    strings: new Map(),
    numbers: [],
    numericScale: options.numericScale ?? 0.25,
    bigrams: options.bigrams ?? false,
    relations: options.relations ?? true,
  };
  visit(walk, "", state, -1);
  if (walk.relations) addRelations(walk);
}

/**
 * Checks a hash dimension.
 *
 * @param dimension Number of buckets.
 * @returns The dimension.
 * @throws {RangeError} When it is not a power of two between 2^8 and 2^30.
 */
export function checkDimension(dimension: number): number {
  if (
    !Number.isInteger(dimension) || dimension < 256 || dimension > 2 ** 30 ||
    (dimension & (dimension - 1)) !== 0
  ) {
    throw new RangeError(
      `Cannot hash features: dimension "${dimension}" is not a power of two between 256 and 2^30`,
    );
  }
  return dimension;
}

/**
 * The hashed, unit-length feature vector of a state.
 *
 * Each named feature (see {@linkcode featureTokens}) lands in bucket
 * `fnv1a32(name) mod dimension`; values in the same bucket add up; the vector is then divided by
 * its Euclidean norm (an all-zero vector stays zero).
 *
 * @param state Any JSON value (a decision state).
 * @param options Feature options.
 * @returns The sparse vector, indices ascending.
 * @throws {RangeError} When `options.dimension` is not a power of two between 2^8 and 2^30.
 * @example
 * ```ts
 * import { featurize } from "./features.ts";
 * const v = featurize({ tier: "gold", thread: [{ text: "please cancel my plan" }] });
 * const norm = Math.hypot(...v.values);
 * if (Math.abs(norm - 1) > 1e-12) throw new Error("unit length");
 * ```
 */
export function featurize(state: unknown, options: FeatureOptions = {}): SparseVector {
  const dimension = checkDimension(options.dimension ?? DEFAULT_DIMENSION);
  const sink = new HashSink(dimension - 1);
  walkState(state, sink, options);
  const buckets = sink.buckets;
  const indices = Uint32Array.from(buckets.keys()).sort();
  const values = new Float64Array(indices.length);
  let squares = 0;
  for (let i = 0; i < indices.length; i++) {
    const v = buckets.get(indices[i] as number) as number;
    values[i] = v;
    squares += v * v;
  }
  if (squares > 0) {
    const norm = Math.sqrt(squares);
    for (let i = 0; i < values.length; i++) values[i] = (values[i] as number) / norm;
  }
  return { indices, values };
}
