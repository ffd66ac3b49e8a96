import assert from "node:assert/strict";
import { minimize } from "./_lbfgs.ts";

Deno.test("`minimize()` finds the minimum of the Rosenbrock function", () => {
  const result = minimize(
    (x, g) => {
      const a = x[0]!;
      const b = x[1]!;
      g[0] = -2 * (1 - a) - 400 * a * (b - a * a);
      g[1] = 200 * (b - a * a);
      return (1 - a) ** 2 + 100 * (b - a * a) ** 2;
    },
    Float64Array.of(-1.2, 1),
    { maxIterations: 500 },
  );
  assert.ok(Math.abs(result.x[0]! - 1) < 1e-4 && Math.abs(result.x[1]! - 1) < 1e-4, `${result.x}`);
});

Deno.test("`minimize()` stops at the iteration budget and does not touch the start", () => {
  const start = Float64Array.of(10, -10);
  const result = minimize(
    (x, g) => {
      g[0] = 2 * x[0]!;
      g[1] = 20 * x[1]!;
      return x[0]! ** 2 + 10 * x[1]! ** 2;
    },
    start,
    { maxIterations: 1 },
  );
  assert.equal(result.iterations, 1);
  assert.deepEqual([...start], [10, -10]);
});

Deno.test("`minimize()` rejects an objective that is not finite at the start", () => {
  assert.throws(() => minimize(() => NaN, Float64Array.of(0)), RangeError);
});
