import assert from "node:assert/strict";
import { binomialPValue, clopperPearsonLower, learnThenTest, neededTrials } from "./ltt.ts";
import { clopperPearsonUpper } from "./binomial.ts";

Deno.test("`binomialPValue()` is P(X ≤ k) under the rate α (hand-computed)", () => {
  assert.ok(Math.abs(binomialPValue(0, 59, 0.05) - 0.95 ** 59) < 1e-15);
  assert.ok(Math.abs(binomialPValue(1, 2, 0.5) - 0.75) < 1e-15);
  assert.equal(binomialPValue(0, 0, 0.05), 1, "nothing measured rejects nothing");
});

Deno.test("`learnThenTest()` stops at the first bar it cannot reject", () => {
  // α 0.1: 0/100 (p 2.7e-5) and 2/100 (p 0.0019) are rejected at δ 0.05, 9/100 (p 0.45) is not.
  const candidates = [
    { events: 0, trials: 100 },
    { events: 2, trials: 100 },
    { events: 9, trials: 100 },
    { events: 0, trials: 100 }, // never tested: the sequence stopped
  ];
  assert.equal(learnThenTest(candidates, 0.1, 0.05), 1);
  assert.equal(learnThenTest([{ events: 0, trials: 28 }], 0.1, 0.05), null, "0.9^28 > 0.05");
  assert.equal(learnThenTest([{ events: 0, trials: 29 }], 0.1, 0.05), 0, "0.9^29 ≤ 0.05");
  assert.equal(learnThenTest([], 0.1, 0.05), null);
});

Deno.test("`neededTrials()` is the fewest trials that can certify with no event", () => {
  assert.equal(neededTrials(0.05, 0.05), 59);
  assert.equal(neededTrials(0.05, 0.0125), 86);
  assert.equal(neededTrials(0.1, 0.05), 29);
  for (const [alpha, delta] of [[0.01, 0.05], [0.2, 0.001], [0.05, 0.5]] as const) {
    const n = neededTrials(alpha, delta);
    assert.ok((1 - alpha) ** n <= delta && (1 - alpha) ** (n - 1) > delta, `${alpha} ${delta}`);
  }
});

Deno.test("`clopperPearsonLower()` mirrors the upper bound", () => {
  assert.equal(clopperPearsonLower(0, 10), 0);
  assert.ok(Math.abs(clopperPearsonLower(10, 10)! - 0.05 ** (1 / 10)) < 1e-9);
  assert.ok(Math.abs(clopperPearsonLower(3, 20)! - (1 - clopperPearsonUpper(17, 20)!)) < 1e-12);
  assert.equal(clopperPearsonLower(0, 0), null);
});
