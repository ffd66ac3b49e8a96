/**
 * The feature hash: 32-bit FNV-1a over a string's UTF-8 bytes.
 *
 * @module
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function mix(hash: number, byte: number): number {
  return Math.imul(hash ^ byte, FNV_PRIME) >>> 0;
}

/**
 * 32-bit FNV-1a hash of a string's UTF-8 encoding (offset basis 2166136261, prime 16777619).
 *
 * The bytes are produced on the fly, so no buffer is allocated; a lone surrogate hashes as
 * U+FFFD, the way `TextEncoder` encodes it. Passing the hash of a prefix as `seed` continues it:
 * `fnv1a32(b, fnv1a32(a)) === fnv1a32(a + b)`.
 *
 * @param text The string to hash.
 * @param seed The running hash to continue from.
 * @returns An unsigned 32-bit integer.
 * @example
 * ```ts
 * import { fnv1a32 } from "./_hash.ts";
 * if (fnv1a32("a") !== 0xe40c292c) throw new Error("FNV-1a of 'a'");
 * ```
 */
export function fnv1a32(text: string, seed: number = FNV_OFFSET): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
      } else {
        code = 0xfffd;
      }
    } else if (code >= 0xd800 && code <= 0xdfff) {
      code = 0xfffd;
    }
    if (code < 0x80) {
      hash = mix(hash, code);
    } else if (code < 0x800) {
      hash = mix(hash, 0xc0 | (code >> 6));
      hash = mix(hash, 0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      hash = mix(hash, 0xe0 | (code >> 12));
      hash = mix(hash, 0x80 | ((code >> 6) & 0x3f));
      hash = mix(hash, 0x80 | (code & 0x3f));
    } else {
      hash = mix(hash, 0xf0 | (code >> 18));
      hash = mix(hash, 0x80 | ((code >> 12) & 0x3f));
      hash = mix(hash, 0x80 | ((code >> 6) & 0x3f));
      hash = mix(hash, 0x80 | (code & 0x3f));
    }
  }
  return hash;
}
