/**
 * Seeded 32-bit hashing shared by every draw that must depend only on its inputs (never on order,
 * count or time): the Poisson bootstrap's case weights, the reference server's fault draws and the
 * `synthetic` predictor's logits. MurmurHash3's 32-bit finalizer and its string hash over UTF-16
 * code units.
 *
 * @module
 */

/**
 * MurmurHash3's 32-bit finalizer: mixes the 32 bits of `h` (taken modulo 2^32) so that every
 * input bit affects every output bit.
 *
 * @param h Any integer (its low 32 bits are used).
 * @returns An unsigned 32-bit integer.
 * @example
 * ```ts
 * import { fmix32 } from "./hash32.ts";
 * fmix32(0); // 0
 * fmix32(1) === fmix32(1 + 2 ** 32); // true
 * ```
 */
export function fmix32(h: number): number {
  h = h >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A MurmurHash3-style 32-bit hash of a string's UTF-16 code units under a seed.
 *
 * @param text The string.
 * @param seed A 32-bit seed (its low 32 bits are used).
 * @returns An unsigned 32-bit integer.
 * @example
 * ```ts
 * import { hashString32 } from "./hash32.ts";
 * hashString32("case-1", 0) === hashString32("case-1", 0); // true
 * ```
 */
export function hashString32(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    let k = Math.imul(text.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
  }
  return fmix32((h ^ text.length) >>> 0);
}

/**
 * A uniform number in [0, 1) that depends only on (seed, index), both non-negative integers up to
 * 2^53.
 *
 * @param seed A non-negative integer seed.
 * @param index A non-negative integer.
 * @returns The draw.
 * @example
 * ```ts
 * import { unitDraw } from "./hash32.ts";
 * unitDraw(5, 3) === unitDraw(5, 3); // true
 * ```
 */
export function unitDraw(seed: number, index: number): number {
  const low = seed >>> 0;
  const high = Math.floor(seed / 0x1_0000_0000) >>> 0;
  const key = fmix32(low ^ fmix32(high + 0x9e3779b9));
  const indexLow = index >>> 0;
  const indexHigh = Math.floor(index / 0x1_0000_0000) >>> 0;
  const h = fmix32((key + Math.imul(indexLow, 0x9e3779b9)) ^ fmix32(indexHigh ^ 0x632be5ab));
  return fmix32(h ^ key) / 0x1_0000_0000;
}
