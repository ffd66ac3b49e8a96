import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { SCORE_MAE, SCORE_WITHIN_ONE } from "./ordinal.ts";
import { computeMetric, type MetricInput } from "./registry.ts";

function score(
  predicted: Record<string, number> | null,
  gold: string,
  goldProbabilities: Record<string, number>,
  type = "score",
): MetricInput {
  return {
    case: "c",
    type,
    correct: false,
    confidence: predicted ? Math.max(...Object.values(predicted)) : null,
    kl: null,
    brier: null,
    predicted,
    gold,
    gold_probabilities: goldProbabilities,
    error: predicted ? null : { kind: "timeout" },
  };
}

const table = [
  // E_pred 1.6, E_gold 1 → 0.6; top level 2, gold 1 → within one
  score({ 0: 0.1, 1: 0.2, 2: 0.7 }, "1", { 0: 0, 1: 1, 2: 0 }),
  // E_pred 0.5, E_gold 2 → 1.5; tie between 0 and 1 → level 0, gold 2 → not within one
  score({ 0: 0.5, 1: 0.5, 2: 0 }, "2", { 0: 0, 1: 0, 2: 1 }),
  // an error: a miss for within-one, left out of the MAE
  score(null, "1", { 0: 0, 1: 1, 2: 0 }),
  // a choice question whose options look like levels: not a score question
  score({ 0: 1, 1: 0, 2: 0 }, "2", { 0: 0, 1: 0, 2: 1 }, "choice"),
];

Deno.test("`score_mae` is the mean |E_pred − E_gold| over answered score decisions", () => {
  assertClose(computeMetric(SCORE_MAE, table), 1.05, 1e-12);
  // a gold distribution, not only a one-hot label: E_gold = 0.5·1 + 0.5·2 = 1.5
  assertClose(
    computeMetric(SCORE_MAE, [score({ 0: 0, 1: 0, 2: 1 }, "1", { 0: 0, 1: 0.5, 2: 0.5 })]),
    0.5,
    1e-12,
  );
  assert.equal(computeMetric(SCORE_MAE, [table[2]!, table[3]!]), null);
});

Deno.test("`score_within_one` counts errors as misses and takes the lower level on a tie", () => {
  assertClose(computeMetric(SCORE_WITHIN_ONE, table), 1 / 3, 1e-12);
  assert.equal(computeMetric(SCORE_WITHIN_ONE, [table[2]!]), 0);
  assert.equal(computeMetric(SCORE_WITHIN_ONE, [table[3]!]), null);
});
