/**
 * The softmax kernel shared by the temperature what-if and the fitted model.
 *
 * @module
 */

/**
 * Replaces logits with softmax probabilities in place (max-shifted, so large logits are safe).
 *
 * @example
 * ```ts
 * import { softmaxInPlace } from "./softmax.ts";
 * const p = softmaxInPlace(Float64Array.from([0, Math.log(3)]));
 * if (Math.abs(p[1]! - 0.75) > 1e-12) throw new Error("3:1");
 * ```
 *
 * @param logits Logits; overwritten with probabilities.
 * @param temperature Divides the logits first.
 * @returns The same array.
 */
export function softmaxInPlace(logits: Float64Array, temperature = 1): Float64Array {
  let max = -Infinity;
  for (let k = 0; k < logits.length; k++) {
    const z = (logits[k] as number) / temperature;
    logits[k] = z;
    if (z > max) max = z;
  }
  let sum = 0;
  for (let k = 0; k < logits.length; k++) {
    const e = Math.exp((logits[k] as number) - max);
    logits[k] = e;
    sum += e;
  }
  for (let k = 0; k < logits.length; k++) logits[k] = (logits[k] as number) / sum;
  return logits;
}
