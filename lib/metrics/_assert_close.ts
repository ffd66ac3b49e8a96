/**
 * Private test helper: approximate equality for floating-point results.
 *
 * @module
 */
import assert from "node:assert/strict";

/** Asserts `actual` is a number within `tolerance` of `expected`. */
export function assertClose(
  actual: number | null | undefined,
  expected: number,
  tolerance = 1e-9,
  message?: string,
): void {
  assert.equal(typeof actual, "number", message ?? `expected a number close to ${expected}`);
  assert.ok(
    Math.abs((actual as number) - expected) <= tolerance,
    message ?? `expected ${actual} to be within ${tolerance} of ${expected}`,
  );
}
