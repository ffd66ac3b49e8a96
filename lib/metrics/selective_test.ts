import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { computeMetric, type MetricInput } from "./registry.ts";
import {
  ACC_AT_50,
  ACC_AT_80,
  accuracyAtCoverage,
  AURC,
  coverageThresholds,
  riskCoverage,
} from "./selective.ts";

function d(confidence: number | null, correct: boolean): MetricInput {
  return {
    case: "c",
    type: "choice",
    correct,
    confidence,
    kl: null,
    brier: null,
    error: confidence === null ? { kind: "timeout" } : null,
  };
}

// 0.9 right, 0.8 tied (one wrong of two), 0.5 wrong, and a timeout left out
const table = [d(0.8, false), d(0.5, false), d(null, false), d(0.9, true), d(0.8, true)];

Deno.test("`riskCoverage()` ranks by confidence and spreads tied errors evenly", () => {
  const curve = riskCoverage(table);
  assert.deepEqual(curve.map((p) => p.kept), [1, 2, 3, 4]);
  assert.deepEqual(curve.map((p) => p.threshold), [0.9, 0.8, 0.8, 0.5]);
  // k=2 is inside the 0.8 tie: half of its one error
  assert.deepEqual(curve.map((p) => p.risk), [0, 0.25, 1 / 3, 0.5]);
  assert.deepEqual(curve.map((p) => p.coverage), [0.25, 0.5, 0.75, 1]);
  assert.deepEqual(riskCoverage([...table].reverse()), curve);
  assert.deepEqual(riskCoverage([d(null, false)]), []);
});

Deno.test("`aurc`, `acc_at_50`, `acc_at_80` against hand-computed values", () => {
  // (0 + 1/4 + 1/3 + 1/2)/4
  assertClose(computeMetric(AURC, table), 13 / 48, 1e-12);
  // 50 %: k = 2 → 1 − 1/4; 80 %: k = ⌈3.2⌉ = 4 → 1 − 1/2
  assertClose(computeMetric(ACC_AT_50, table), 0.75, 1e-12);
  assertClose(computeMetric(ACC_AT_80, table), 0.5, 1e-12);
  assert.equal(computeMetric(AURC, [d(null, false)]), null);
  assert.equal(computeMetric(ACC_AT_80, []), null);
});

Deno.test("`accuracyAtCoverage()` keeps ⌈c·N⌉ decisions, exact products not rounded up", () => {
  const curve = riskCoverage(
    Array.from({ length: 2000 }, (_, i) => d(1 - i / 4000, i < 1600)),
  );
  // 0.8·2000 = 1600 exactly: the top 1600 are all right
  assert.equal(accuracyAtCoverage(curve, 0.8), 1);
  assertClose(accuracyAtCoverage(curve, 0.8005), 1600 / 1601, 1e-12);
  assert.throws(() => accuracyAtCoverage(curve, 0), /coverage "0" is not in \(0, 1\]/);
});

Deno.test("`coverageThresholds()` keeps a tie at the threshold whole and scores it exactly", () => {
  const rows = coverageThresholds(riskCoverage(table), [0.25, 0.5, 1]);
  // 25 %: the top one (0.9, right); 50 %: the 2nd is in the 0.8 tie, so both 0.8s are kept
  assert.deepEqual(rows, [
    { target: 0.25, threshold: 0.9, kept: 1, coverage: 0.25, accuracy: 1 },
    { target: 0.5, threshold: 0.8, kept: 3, coverage: 0.75, accuracy: 1 - 1 / 3 },
    { target: 1, threshold: 0.5, kept: 4, coverage: 1, accuracy: 0.5 },
  ]);
  assert.deepEqual(coverageThresholds([], [0.5]), []);
});
