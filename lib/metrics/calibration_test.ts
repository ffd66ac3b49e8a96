import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import {
  calibrationBins,
  debiasedEceOfBins,
  ECE_15,
  ECE_DEBIASED,
  ECE_EM,
  ECE_PER_QUESTION,
  MCE,
  meanAbsoluteNormal,
  perQuestionEce,
} from "./calibration.ts";
import { ECE } from "./headline.ts";
import { computeMetric, type MetricInput } from "./registry.ts";

function d(
  confidence: number | null,
  correct: boolean,
  fields: Partial<MetricInput> = {},
): MetricInput {
  return {
    case: fields.case ?? `c${confidence}`,
    type: "choice",
    correct,
    confidence,
    kl: confidence === null ? null : 0.1,
    brier: confidence === null ? null : 0.1,
    error: confidence === null ? { kind: "timeout" } : null,
    ...fields,
  };
}

const timedOut = d(null, false);

Deno.test("`ece_15` and `mce` against hand-computed bins, beside the 10-bin ECE", () => {
  // 0.61 and 0.69 share the 10-bin bin 6 but not a 15-bin bin (⌊9.15⌋ = 9, ⌊10.35⌋ = 10)
  const table = [d(0.61, true), d(0.69, false), timedOut];
  // 10 bins: |1 − 1.30| / 2 = 0.15; 15 bins: (|1 − 0.61| + |0 − 0.69|) / 2 = 0.54
  assertClose(computeMetric(ECE, table), 0.15, 1e-12);
  assertClose(computeMetric(ECE_15, table), 0.54, 1e-12);
  assertClose(computeMetric(MCE, table), 0.15, 1e-12);
  // MCE is the largest gap: 0.95 alone in bin 9 (gap 0.05) and 0.2 alone in bin 2 (gap 0.8)
  assertClose(computeMetric(MCE, [d(0.95, true), d(0.2, true)]), 0.8, 1e-12);
  // 1.0 falls in the last bin, 0 in the first
  assertClose(computeMetric(ECE_15, [d(1, false), d(0, true)]), 1, 1e-12);
  assert.equal(computeMetric(ECE_15, [timedOut]), null);
  assert.equal(computeMetric(MCE, []), null);
});

Deno.test("equal-mass bins keep tied confidences in one bin, whatever the input order", () => {
  const table = [
    d(0.2, true),
    d(0.2, false),
    d(0.2, false),
    d(0.4, true),
    d(0.6, false),
    d(0.8, true),
  ];
  // ranks 0–2 tie at 0.2 → bin ⌊3·0/6⌋ = 0; 0.4 rank 3 → 1; 0.6 rank 4 → 2; 0.8 rank 5 → 2
  const bins = calibrationBins(table, { bins: 3, binning: "equal-mass" });
  assert.deepEqual(bins.map((b) => [b.index, b.n, b.correct]), [[0, 3, 1], [1, 1, 1], [2, 2, 1]]);
  assert.deepEqual(bins.map((b) => [b.lower, b.upper]), [[0.2, 0.2], [0.4, 0.4], [0.6, 0.8]]);
  const reversed = calibrationBins([...table].reverse(), { bins: 3, binning: "equal-mass" });
  assert.deepEqual(reversed, bins);
});

Deno.test("`ece_em` uses 15 equal-mass bins", () => {
  // 30 distinct confidences: two per bin, in rank order
  const table = Array.from({ length: 30 }, (_, i) => d(0.3 + i * 0.02, i % 3 === 0));
  let expected = 0;
  for (let b = 0; b < 15; b++) {
    const pair = [table[2 * b]!, table[2 * b + 1]!];
    const correct = pair.filter((x) => x.correct).length;
    expected += Math.abs(correct - pair[0]!.confidence! - pair[1]!.confidence!);
  }
  assertClose(computeMetric(ECE_EM, [...table, timedOut]), expected / 30, 1e-12);
  // one tie of all decisions: one bin, the pooled gap
  const tied = [d(0.7, true), d(0.7, true), d(0.7, false), d(0.7, true)];
  assertClose(computeMetric(ECE_EM, tied), 0.05, 1e-12);
  assert.equal(computeMetric(ECE_EM, [timedOut]), null);
});

Deno.test("`ece_debiased` subtracts the expected sampling gap of each bin", () => {
  // one bin of 4: accuracy 0.5 at confidence 0.5, plug-in gap 0, σ = √(0.25/4) = 0.25:
  // 2·0 − E|N(0, 0.25²)| = −0.25·√(2/π)
  const even = [d(0.5, true), d(0.5, false), d(0.5, true), d(0.5, false)];
  assertClose(computeMetric(ECE_DEBIASED, even), -0.25 * Math.sqrt(2 / Math.PI), 1e-7);
  // pure bins (accuracy 0 or 1) have no sampling noise: the plug-in ECE
  const pure = [d(0.9, true), d(0.9, true), d(0.3, false), d(0.3, false)];
  assertClose(computeMetric(ECE_DEBIASED, pure), computeMetric(ECE_EM, pure)!, 1e-12);
  assert.equal(computeMetric(ECE_DEBIASED, [timedOut]), null);
});

/** E|X| for X ~ N(mu, sd²) by Simpson's rule over ±12 sd: an independent check of the closed form. */
function integratedMeanAbs(mu: number, sd: number): number {
  const steps = 20_000;
  const lo = mu - 12 * sd;
  const h = (24 * sd) / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const x = lo + i * h;
    const density = Math.exp(-((x - mu) ** 2) / (2 * sd * sd)) / (sd * Math.sqrt(2 * Math.PI));
    const w = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
    sum += w * Math.abs(x) * density;
  }
  return (sum * h) / 3;
}

Deno.test("`meanAbsoluteNormal()` matches numeric integration", async (t) => {
  for (const [mu, sd] of [[0, 1], [0.1, 0.05], [-0.2, 0.1], [0.03, 0.2], [0.5, 0.01]] as const) {
    await t.step(`mu ${mu}, sd ${sd}`, () => {
      assertClose(meanAbsoluteNormal(mu, sd), integratedMeanAbs(mu, sd), 2e-7 * (1 + Math.abs(mu)));
    });
  }
  assert.equal(meanAbsoluteNormal(-0.3, 0), 0.3);
});

Deno.test("`debiasedEceOfBins()` on mixed bins equals its definition computed by integration", () => {
  const bins = [
    { index: 0, lower: 0.3, upper: 0.4, n: 10, correct: 6, confidenceSum: 3.5 },
    { index: 1, lower: 0.6, upper: 0.7, n: 5, correct: 4, confidenceSum: 3.3 },
    { index: 2, lower: 0.9, upper: 0.9, n: 5, correct: 5, confidenceSum: 4.5 },
  ];
  let expected = 0;
  for (const b of bins) {
    const acc = b.correct / b.n;
    const gap = acc - b.confidenceSum / b.n;
    const sd = Math.sqrt(acc * (1 - acc) / b.n);
    const noise = sd === 0 ? Math.abs(gap) : integratedMeanAbs(gap, sd);
    expected += (b.n / 20) * (2 * Math.abs(gap) - noise);
  }
  assertClose(debiasedEceOfBins(bins), expected, 1e-6);
});

Deno.test("`ece_per_question` averages each question's 10-bin ECE with equal weight", () => {
  const q1 = { workflow: "w", question: "q1" };
  const q2 = { workflow: "w", question: "q2" };
  const table = [
    d(0.95, true, q1),
    d(0.95, true, q1),
    d(0.95, true, q1),
    d(0.55, false, q2),
    d(null, false, q2),
  ];
  // q1: 0.05, q2: 0.55 → mean 0.3; pooled: (|3 − 2.85| + 0.55) / 4 = 0.175
  assertClose(computeMetric(ECE_PER_QUESTION, table), 0.3, 1e-12);
  assertClose(computeMetric(ECE, table), 0.175, 1e-12);
  // the same question name in two workflows is two questions
  const other = [d(0.95, true, q1), d(0.55, false, { workflow: "v", question: "q1" })];
  assertClose(perQuestionEce(other), 0.3, 1e-12);
  assert.equal(computeMetric(ECE_PER_QUESTION, [timedOut]), null);
});

Deno.test("`calibrationBins()` refuses a bin count that is not a positive integer", () => {
  assert.throws(() => calibrationBins([], { bins: 0 }), /Cannot bin confidences: bin count "0"/);
});
