/**
 * Private: bootstrap options with defaults applied and checked, shared by the case bootstrap and
 * the paired comparison.
 *
 * @module
 */
import type { BootstrapOptions } from "./bootstrap.ts";

/** Bootstrap options with defaults applied and checked (shared with the paired comparison). */
export function resolveBootstrapOptions(
  options: BootstrapOptions,
): { resamples: number; seed: number; level: number } {
  const { resamples = 1000, seed = 0, level = 0.95 } = options;
  if (!Number.isSafeInteger(resamples) || resamples < 0) {
    throw new RangeError(
      `Cannot bootstrap: resamples "${resamples}" is not a non-negative integer`,
    );
  }
  if (!(level > 0 && level < 1)) {
    throw new RangeError(`Cannot bootstrap: level "${level}" is not between 0 and 1`);
  }
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`Cannot bootstrap: seed "${seed}" is not an integer`);
  }
  return { resamples, seed, level };
}
