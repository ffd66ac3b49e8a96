/**
 * Private: the Poisson bootstrap's case weights (Chamandy, Muralidharan, Najmi & Naidu 2012,
 * "Estimating Uncertainty for Massive Data Streams"). In replicate b a case counts w times, w a
 * Poisson(1) draw made from a hash of (seed, case id, b) alone: a case's weights do not depend on
 * the other cases, their number or their order, so replicates are summed in one pass, in any
 * order, in parallel or across a resume, and two runs of the same cases get the same weights.
 *
 * The hash: the case id's UTF-16 code units go through two MurmurHash3-style 32-bit mixes with
 * different seeds (a 64-bit case key; both mixes also take the seed's two 32-bit halves); replicate
 * b then mixes the key with b through the MurmurHash3 finalizer into a 32-bit uniform u, and the
 * weight is the smallest k with u < 2^32·P(X ≤ k), X ~ Poisson(1) (inversion of the CDF; the
 * largest weight a 32-bit uniform reaches is 12).
 *
 * @module
 */
import { fmix32, hashString32 } from "../hash32.ts";

/** ⌊2^32·P(X ≤ k)⌋ for X ~ Poisson(1), k = 0, 1, …, up to where it reaches 2^32. */
const THRESHOLDS: readonly number[] = (() => {
  const out: number[] = [];
  let term = Math.exp(-1);
  let cdf = 0;
  for (let k = 0; k < 40; k++) {
    cdf += term;
    term /= k + 1;
    const t = Math.floor(cdf * 4294967296);
    if (t >= 4294967296) break;
    out.push(t);
  }
  out.push(4294967296);
  return out;
})();

/** The seed's low and high 32 bits (two's complement for negatives). */
function seedHalves(seed: number): [number, number] {
  const big = BigInt.asUintN(64, BigInt(seed));
  return [Number(big & 0xffffffffn), Number(big >> 32n)];
}

/**
 * The 64-bit key of a case under a seed, as two 32-bit halves.
 *
 * @param seed The bootstrap seed (a safe integer).
 * @param caseId The case id.
 * @returns The key's two halves.
 */
export function caseKey(seed: number, caseId: string): [number, number] {
  const [lo, hi] = seedHalves(seed);
  return [
    hashString32(caseId, fmix32((lo ^ 0x9e3779b9) >>> 0) ^ hi),
    hashString32(caseId, fmix32((hi ^ 0x7f4a7c15) >>> 0) ^ lo ^ 0x165667b1),
  ];
}

/**
 * A case's Poisson(1) weight in each replicate.
 *
 * @param seed The bootstrap seed (a safe integer).
 * @param caseId The case id.
 * @param into One weight per replicate is written here (its length is the number of replicates).
 * @returns `into`.
 */
export function poissonWeights(seed: number, caseId: string, into: Uint8Array): Uint8Array {
  const [a, b] = caseKey(seed, caseId);
  for (let r = 0; r < into.length; r++) {
    const k = fmix32((a + Math.imul(r + 1, 0x9e3779b9)) >>> 0);
    const u = fmix32((k ^ b ^ Math.imul(r + 1, 0x27d4eb2f)) >>> 0);
    let w = 0;
    while (u >= (THRESHOLDS[w] as number)) w++;
    into[r] = w;
  }
  return into;
}
