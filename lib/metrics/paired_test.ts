import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { percentile } from "./aggregate.ts";
import { mcnemarExact, pairedComparison, type PairedInput } from "./paired.ts";
import { poissonWeights } from "./_poisson.ts";
import { shuffle } from "./rng.ts";

const timeout = { kind: "timeout" as const, message: "Timed out" };

/** Exact two-sided McNemar p-value with BigInt binomials, for checking the log-space version. */
function exactP(b: number, c: number): number {
  const n = b + c;
  const k = Math.min(b, c);
  let term = 1n;
  let sum = 0n;
  for (let i = 0; i <= k; i++) {
    if (i > 0) term = (term * BigInt(n - i + 1)) / BigInt(i);
    sum += term;
  }
  // p = 2·sum / 2^n, computed with 2^80 of fixed-point headroom
  const scaled = ((2n * sum) << 80n) / (1n << BigInt(n));
  return Math.min(1, Number(scaled) / 2 ** 80);
}

Deno.test("`mcnemarExact()` matches known exact p-values", async (t) => {
  const cases: Array<[number, number, number]> = [
    [0, 5, 0.0625], // 2·1/32
    [5, 0, 0.0625],
    [1, 9, 0.021484375], // 2·(1 + 10)/1024
    [9, 1, 0.021484375],
    [0, 1, 1], // 2·1/2
    [3, 3, 1], // b = c
    [50, 50, 1],
    [2, 3, 1], // 2·(1 + 5 + 10)/32 = 1
    [0, 0, 1], // no discordant pairs
    [0, 10, 2 / 1024],
  ];
  for (const [b, c, p] of cases) {
    await t.step(`b=${b}, c=${c} → ${p}`, () => {
      assertClose(mcnemarExact(b, c), p, 1e-12);
    });
  }
});

Deno.test("`mcnemarExact()` stays accurate for thousands of discordant pairs", async (t) => {
  for (const [b, c] of [[10, 20], [100, 140], [900, 1100], [1000, 1000], [1500, 1700]]) {
    await t.step(`b=${b}, c=${c}`, () => {
      const expected = exactP(b as number, c as number);
      const actual = mcnemarExact(b as number, c as number);
      assert.ok(Number.isFinite(actual) && actual > 0 && actual <= 1);
      assert.ok(Math.abs(actual - expected) <= 1e-9 * expected, `${actual} vs ${expected}`);
    });
  }
});

Deno.test("`mcnemarExact()` underflows to 0 only beyond the smallest double", () => {
  assertClose(mcnemarExact(0, 1000), 2 ** -999, 1e-310); // 2·2^-1000, still representable
  assert.equal(mcnemarExact(0, 1429), 0);
});

Deno.test("`mcnemarExact()` rejects counts that are not non-negative integers", () => {
  assert.throws(() => mcnemarExact(-1, 2), RangeError);
  assert.throws(() => mcnemarExact(1.5, 2), RangeError);
});

const d = (
  c: string,
  workflow: string,
  question: string,
  correct: boolean,
  error: unknown = null,
): PairedInput => ({
  case: c,
  workflow,
  question,
  correct,
  error,
});

// Shared: c1/x (both right), c1/y (only B), c2/x (only A), c2/y (only B: A failed).
// c3/x only in A; c4/x only in B.
const runA = [
  d("c1", "w1", "x", true),
  d("c1", "w1", "y", false),
  d("c2", "w2", "x", true),
  d("c2", "w2", "y", true, timeout), // an error is a miss whatever `correct` says
  d("c3", "w2", "x", true),
];
const runB = [
  d("c1", "w1", "x", true),
  d("c1", "w1", "y", true),
  d("c2", "w2", "x", false),
  d("c2", "w2", "y", true),
  d("c4", "w1", "x", true),
];

Deno.test("`pairedComparison()` compares the shared decisions with hand-computed values", () => {
  const r = pairedComparison(runA, runB);
  assert.equal(r.shared, 4);
  assert.equal(r.sharedCases, 2);
  assert.equal(r.onlyInA, 1);
  assert.equal(r.onlyInB, 1);
  assert.equal(r.accuracyA, 0.5); // c1/x, c2/x
  assert.equal(r.accuracyB, 0.75); // c1/x, c1/y, c2/y
  assert.equal(r.difference, 0.25);
  assert.deepEqual(r.mcnemar, { onlyA: 1, onlyB: 2, both: 1, neither: 0 });
  assert.equal(r.pValue, 1); // 2·(1 + 3)/8 = 1
});

Deno.test("`pairedComparison()` bootstraps the difference by weighing shared cases", () => {
  // per case: c1 has 2 shared decisions, B − A = 2 − 1 = +1; c2 has 2, B − A = 1 − 1 = 0.
  // Weighing them w1, w2 gives w1/(2·w1 + 2·w2): 0.5 when w2 = 0 < w1 and 0 when w1 = 0 < w2
  // (about 23% of replicates each), so the 95% interval is [0, 0.5] around the difference 0.25.
  const r = pairedComparison(runA, runB, { seed: 3 });
  assert.deepEqual(r.interval, [0, 0.5]);
  assert.deepEqual(pairedComparison(runA, runB, { seed: 3 }).interval, r.interval);
});

Deno.test("`pairedComparison()` weighs a case the same in both runs, whatever their order", () => {
  const run = Array.from({ length: 90 }, (_, i) => ({
    case: `c${i % 30}`,
    workflow: "w",
    question: `q${Math.floor(i / 30)}`,
    correct: (i * 7919) % 10 < 6,
    error: null,
  }));
  // The same answers in both runs: every replicate's difference is 0.
  assert.deepEqual(pairedComparison(run, shuffle(run, 4)).interval, [0, 0]);
  const better = run.map((d, i) => ({ ...d, correct: d.correct || i % 7 === 0 }));
  const r = pairedComparison(run, better, { seed: 5 });
  const shuffled = pairedComparison(shuffle(run, 1), shuffle(better, 2), { seed: 5 });
  assert.deepEqual(shuffled.interval, r.interval);
  assert.deepEqual(shuffled.mcnemar, r.mcnemar);
  assert.ok(r.interval && r.interval[0] <= r.difference! && r.difference! <= r.interval[1]);
});

Deno.test("`pairedComparison()` gives per-workflow and per-question rows", () => {
  const r = pairedComparison(runA, runB, { resamples: 0 });
  assert.equal(r.interval, null);
  assert.deepEqual(
    r.byWorkflow.map((w) => [w.key, w.n, w.accuracyA, w.accuracyB, w.difference, w.onlyA, w.onlyB]),
    [
      ["w1", 2, 0.5, 1, 0.5, 0, 1],
      ["w2", 2, 0.5, 0.5, 0, 1, 1],
    ],
  );
  assert.deepEqual(
    r.byQuestion.map((q) => [q.key, q.accuracyA, q.accuracyB, q.onlyA, q.onlyB, q.both, q.neither]),
    [
      ["w1/x", 1, 1, 0, 0, 1, 0],
      ["w1/y", 0, 1, 0, 1, 0, 0],
      ["w2/x", 1, 0, 1, 0, 0, 0],
      ["w2/y", 0, 1, 0, 1, 0, 0],
    ],
  );
  assert.equal(r.byQuestion[1]?.pValue, 1);
});

Deno.test("`pairedComparison()` with nothing shared gives n/a and p = 1", () => {
  const r = pairedComparison([d("a", "w", "q", true)], [d("b", "w", "q", true)]);
  assert.equal(r.shared, 0);
  assert.equal(r.accuracyA, null);
  assert.equal(r.accuracyB, null);
  assert.equal(r.difference, null);
  assert.equal(r.interval, null);
  assert.equal(r.pValue, 1);
  assert.deepEqual(r.byWorkflow, []);
});

Deno.test("`pairedComparison()` rejects a run that holds a decision twice", () => {
  assert.throws(
    () => pairedComparison([d("a", "w", "q", true), d("a", "w", "q", false)], []),
    /run A holds decision "a\/q" twice/,
  );
});

Deno.test("`pairedComparison()` finds a clear winner significant", () => {
  // 50 cases × 2 questions: A right on 40 decisions, B right on all 100.
  const a: PairedInput[] = [];
  const b: PairedInput[] = [];
  for (let c = 0; c < 50; c++) {
    for (const q of ["x", "y"]) {
      a.push(d(`c${c}`, "w", q, c < 20));
      b.push(d(`c${c}`, "w", q, true));
    }
  }
  const r = pairedComparison(a, b);
  assert.deepEqual(r.mcnemar, { onlyA: 0, onlyB: 60, both: 40, neither: 0 });
  assertClose(r.difference, 0.6, 1e-12);
  assertClose(r.pValue, 2 / 2 ** 60, 1e-30);
  assert.ok(
    r.interval !== null && r.interval[0] > 0 && r.interval[0] <= 0.6 && r.interval[1] >= 0.6,
  );
});

Deno.test("`pairedComparison()`'s interval equals a naive paired Poisson bootstrap with the same weights", () => {
  const make = (p: number) =>
    Array.from({ length: 60 }, (_, i) => ({
      case: `c${i % 20}`,
      workflow: "w",
      question: `q${Math.floor(i / 20)}`,
      correct: (i * 7919) % 100 < p * 100,
      error: null,
    }));
  const a = make(0.5);
  const b = make(0.7);
  const { interval } = pairedComparison(a, b, { resamples: 300, seed: 11 });
  // Each case weighs its Poisson weight for (seed, case, replicate) on both runs' decisions.
  const ids = [...new Set(a.map((d) => d.case))];
  const per = ids.map((id) => {
    const da = a.filter((d) => d.case === id);
    const db = b.filter((d) => d.case === id);
    return {
      n: da.length,
      delta: db.filter((d) => d.correct).length - da.filter((d) => d.correct).length,
      w: poissonWeights(11, id, new Uint8Array(300)),
    };
  });
  const stats: number[] = [];
  for (let r = 0; r < 300; r++) {
    let n = 0;
    let delta = 0;
    for (const x of per) {
      n += x.w[r]! * x.n;
      delta += x.w[r]! * x.delta;
    }
    if (n > 0) stats.push(delta / n);
  }
  assertClose(interval?.[0], percentile(stats, 2.5) ?? Number.NaN, 1e-12);
  assertClose(interval?.[1], percentile(stats, 97.5) ?? Number.NaN, 1e-12);
});
