/**
 * A small seeded pseudo-random number generator, so fault injection, splits and shuffles repeat
 * exactly for a given seed (the bootstrap draws its case weights from a hash instead:
 * `_poisson.ts`).
 *
 * The generator is mulberry32 (a 32-bit state advanced by a Weyl increment and mixed by two
 * multiply-xorshift rounds): fast, tiny, and good enough for resampling and ordering, not for
 * cryptography.
 *
 * @module
 */

/**
 * A seeded generator of uniform numbers in [0, 1).
 *
 * @param seed Any safe integer; it is reduced modulo 2^32, so `seed` and `seed + 2**32` give the
 *   same sequence.
 * @returns A function that returns the next number of the sequence each time it is called.
 * @throws {RangeError} When `seed` is not a safe integer.
 * @example
 * ```ts
 * import { seededRandom } from "./rng.ts";
 * const a = seededRandom(42);
 * const b = seededRandom(42);
 * if (a() !== b()) throw new Error("same seed, same sequence");
 * ```
 */
export function seededRandom(seed: number): () => number {
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`Cannot seed the random generator: seed "${seed}" is not an integer`);
  }
  let state = Number(BigInt.asUintN(32, BigInt(seed)));
  return function next(): number {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seeded uniform integer in [0, n).
 *
 * @param random A generator from {@linkcode seededRandom}.
 * @param n The number of possible values (at least 1).
 * @returns An integer from 0 to `n - 1`.
 * @throws {RangeError} When `n` is not a positive integer.
 */
export function randomInt(random: () => number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(
      `Cannot draw a random integer: range size "${n}" is not a positive integer`,
    );
  }
  return Math.floor(random() * n);
}

/**
 * A shuffled copy of an array (Fisher–Yates with a seeded generator); the input is not changed.
 *
 * @param array The items to shuffle.
 * @param seed The seed; the same seed and input give the same order.
 * @returns A new array with the same items in a seeded random order.
 * @throws {RangeError} When `seed` is not a safe integer.
 * @example
 * ```ts
 * import { shuffle } from "./rng.ts";
 * const order = shuffle([1, 2, 3, 4], 7);
 * if (order.length !== 4) throw new Error("same items");
 * ```
 */
export function shuffle<T>(array: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...array];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(random, i + 1);
    const tmp = out[i] as T;
    out[i] = out[j] as T;
    out[j] = tmp;
  }
  return out;
}
