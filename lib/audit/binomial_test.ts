import assert from "node:assert/strict";
import { binomialCdf, clopperPearsonUpper } from "./binomial.ts";

function close(actual: number | null, expected: number, tolerance = 1e-9): void {
  assert.ok(actual !== null, "expected a number, got null");
  assert.ok(
    Math.abs(actual - expected) <= tolerance,
    `${actual} is not within ${tolerance} of ${expected}`,
  );
}

Deno.test("binomialCdf() matches hand-computed sums", async (t) => {
  await t.step("P(X ≤ 0 | 2, 0.5) = 1/4", () => close(binomialCdf(0, 2, 0.5), 0.25));
  await t.step("P(X ≤ 1 | 3, 0.5) = 4/8", () => close(binomialCdf(1, 3, 0.5), 0.5));
  await t.step(
    "P(X ≤ 1 | 4, 0.1) = 0.9^4 + 4·0.1·0.9^3",
    () => close(binomialCdf(1, 4, 0.1), 0.9 ** 4 + 4 * 0.1 * 0.9 ** 3),
  );
  await t.step("k ≥ n is certain", () => assert.equal(binomialCdf(5, 5, 0.3), 1));
  await t.step("k < 0 is impossible", () => assert.equal(binomialCdf(-1, 5, 0.3), 0));
});

Deno.test("clopperPearsonUpper() gives the one-sided 95% exact bound", async (t) => {
  // Reference values: scipy.stats.beta.ppf(0.95, k + 1, n - k).
  const table: [number, number, number][] = [
    [0, 53, 0.054955488465177824], // = 1 − 0.05^(1/53): no failure in 53 still allows 5.5%
    [1, 10, 0.39416330243650466],
    [5, 10, 0.7775588989918706],
    [2, 298, 0.020975062653184752],
    [7, 53, 0.2338074340236229],
  ];
  for (const [k, n, want] of table) {
    await t.step(`${k} in ${n}`, () => close(clopperPearsonUpper(k, n), want, 1e-9));
  }
  await t.step(
    "k = 0 has the closed form 1 − α^(1/n)",
    () => close(clopperPearsonUpper(0, 20), 1 - 0.05 ** (1 / 20)),
  );
  await t.step("k = n is 1", () => assert.equal(clopperPearsonUpper(3, 3), 1));
  await t.step("n = 0 measured nothing: null", () => assert.equal(clopperPearsonUpper(0, 0), null));
  await t.step("a 99% bound is wider", () => {
    const b95 = clopperPearsonUpper(0, 53) as number;
    const b99 = clopperPearsonUpper(0, 53, { confidence: 0.99 }) as number;
    close(b99, 1 - 0.01 ** (1 / 53));
    assert.ok(b99 > b95);
  });
});

Deno.test("clopperPearsonUpper() rejects counts that are not counts", () => {
  assert.throws(() => clopperPearsonUpper(4, 3), RangeError);
  assert.throws(() => clopperPearsonUpper(-1, 3), RangeError);
  assert.throws(() => clopperPearsonUpper(1.5, 3), RangeError);
  assert.throws(() => clopperPearsonUpper(0, 3, { confidence: 1 }), RangeError);
});
