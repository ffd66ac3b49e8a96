import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import {
  accuracy,
  ece,
  meanBrier,
  meanConfidence,
  meanKl,
  percentile,
  reliabilityTable,
} from "./aggregate.ts";

const timeout = { kind: "timeout" as const, message: "Timed out" };

// Three answered decisions and one error:
//   d1 correct, conf 0.90, kl 0.1, brier 0.2 → bin 9
//   d2 wrong,   conf 0.60, kl 0.5, brier 0.6 → bin 6
//   d3 correct, conf 0.65, kl 0.3, brier 0.4 → bin 6 (trunc 6.5)
//   d4 error
const decisions = [
  { correct: true, confidence: 0.9, kl: 0.1, brier: 0.2, error: null },
  { correct: false, confidence: 0.6, kl: 0.5, brier: 0.6, error: null },
  { correct: true, confidence: 0.65, kl: 0.3, brier: 0.4, error: null },
  { correct: false, confidence: null, kl: null, brier: null, error: timeout },
];

Deno.test("`accuracy()` counts errors as misses in the denominator", () => {
  assert.equal(accuracy(decisions), 2 / 4);
});

Deno.test("`accuracy()` ignores a `correct` flag on a decision that has an error", () => {
  assert.equal(accuracy([{ correct: true, error: timeout }, { correct: true, error: null }]), 0.5);
});

Deno.test("`meanKl()`, `meanBrier()` and `meanConfidence()` average answered decisions only", () => {
  assertClose(meanKl(decisions), 0.9 / 3, 1e-12); // (0.1 + 0.5 + 0.3) / 3
  assertClose(meanBrier(decisions), 1.2 / 3, 1e-12); // (0.2 + 0.6 + 0.4) / 3
  assertClose(meanConfidence(decisions), 2.15 / 3, 1e-12); // (0.9 + 0.6 + 0.65) / 3
});

Deno.test("`ece()` matches the hand-computed 10-bin value", () => {
  // bin 6: n 2, accuracy 1/2, mean confidence 0.625 → 2·0.125 = 0.25
  // bin 9: n 1, accuracy 1, mean confidence 0.9 → 1·0.1 = 0.1
  // ECE = (0.25 + 0.1) / 3 answered = 0.11666…
  assertClose(ece(decisions), 0.35 / 3, 1e-12);
});

Deno.test("`ece()` is 0 when every bin's accuracy equals its confidence", () => {
  const d = (correct: boolean) => ({ correct, confidence: 0.75, error: null });
  assert.equal(ece([d(true), d(true), d(true), d(false)]), 0);
});

Deno.test("`reliabilityTable()` lists the non-empty bins with hand-computed rows", () => {
  const rows = reliabilityTable(decisions);
  assert.equal(rows.length, 2);
  const [six, nine] = rows;
  assert.equal(six?.bin, 6);
  assertClose(six?.lower, 0.6, 1e-12);
  assertClose(six?.upper, 0.7, 1e-12);
  assert.equal(six?.n, 2);
  assertClose(six?.meanConfidence, 0.625, 1e-12);
  assert.equal(six?.accuracy, 0.5);
  assertClose(six?.gap, -0.125, 1e-12);
  assert.equal(nine?.bin, 9);
  assert.equal(nine?.n, 1);
  assertClose(nine?.gap, 0.1, 1e-12);
});

Deno.test("`reliabilityTable()` puts each confidence in the right bin", async (t) => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [0.05, 0],
    [0.1, 1],
    [0.5, 5],
    [0.7, 7],
    [0.999, 9],
    [1, 9], // 1.0 goes to bin 9, not a bin 10
  ];
  for (const [confidence, bin] of cases) {
    await t.step(`${confidence} → bin ${bin}`, () => {
      const rows = reliabilityTable([{ correct: true, confidence, error: null }]);
      assert.deepEqual(rows.map((r) => r.bin), [bin]);
    });
  }
});

Deno.test("`ece()` with confidence 1.0 and a miss gives 1 (bin 9, gap 1)", () => {
  assert.equal(ece([{ correct: false, confidence: 1, error: null }]), 1);
});

Deno.test("aggregate metrics are null (n/a), never 0, on empty input", async (t) => {
  await t.step("no decisions", () => {
    assert.equal(accuracy([]), null);
    assert.equal(meanKl([]), null);
    assert.equal(meanBrier([]), null);
    assert.equal(meanConfidence([]), null);
    assert.equal(ece([]), null);
    assert.deepEqual(reliabilityTable([]), []);
  });
  await t.step("only errors: accuracy 0, the rest n/a", () => {
    const only = decisions.slice(3);
    assert.equal(accuracy(only), 0);
    assert.equal(meanKl(only), null);
    assert.equal(meanBrier(only), null);
    assert.equal(meanConfidence(only), null);
    assert.equal(ece(only), null);
    assert.deepEqual(reliabilityTable(only), []);
  });
});

Deno.test("an absent `error` counts as answered", () => {
  assert.equal(accuracy([{ correct: true }, { correct: false }]), 0.5);
  assert.equal(meanKl([{ kl: 0.2 }]), 0.2);
});

Deno.test("`percentile()` interpolates linearly between closest ranks", async (t) => {
  const cases: Array<[number[], number, number]> = [
    [[10, 20, 30, 40], 0, 10],
    [[10, 20, 30, 40], 50, 25], // h = 1.5 → 20 + 0.5·10
    [[10, 20, 30, 40], 95, 38.5], // h = 2.85 → 30 + 0.85·10
    [[10, 20, 30, 40], 100, 40],
    [[40, 10, 30, 20], 50, 25], // input order does not matter
    [[1, 2, 3], 50, 2],
    [[100, 200, 300], 95, 290], // h = 1.9 → 200 + 0.9·100
    [[7], 95, 7],
  ];
  for (const [values, p, expected] of cases) {
    await t.step(`p${p} of [${values}] = ${expected}`, () => {
      assertClose(percentile(values, p), expected, 1e-9);
    });
  }
});

Deno.test("`percentile()` returns null on empty input and rejects bad arguments", () => {
  assert.equal(percentile([], 50), null);
  assert.throws(() => percentile([1], 101), RangeError);
  assert.throws(() => percentile([1], -1), RangeError);
  assert.throws(() => percentile([1, Number.NaN], 50), RangeError);
});

Deno.test("`percentile()` leaves its input unsorted", () => {
  const values = [3, 1, 2];
  percentile(values, 50);
  assert.deepEqual(values, [3, 1, 2]);
});
