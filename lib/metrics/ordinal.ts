/**
 * Ordinal measures for score questions (levels `"0"`, `"1"`, …), as registry definitions:
 *
 * - `score_mae`: mean over answered score decisions of |E_pred − E_gold|, where E is the
 *   expected level Σ i·p(i) of the predicted and of the gold distribution (the `score` a System
 *   One server answers and the gold `score`), in levels (0 best).
 * - `score_within_one`: share of score decisions whose predicted top level (argmax, the lower
 *   level on a tie, the rule accuracy uses) is within one level of the gold label; errors count
 *   as misses, like accuracy.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import { expectedLevel, topOf } from "./_distribution.ts";
import { meanMetric } from "./headline.ts";
import type { AdditiveMetric } from "./registry.ts";

/** `score_mae`: mean absolute difference of the predicted and gold expected levels. */
export const SCORE_MAE: AdditiveMetric = meanMetric({
  name: "score_mae",
  label: "Score MAE (levels)",
  description:
    "Mean |expected predicted level − expected gold level| (Σ i·p(i)) over answered score decisions",
  over: "answered",
  higherIsBetter: false,
  range: [0, 9],
  format: "number",
  types: ["score"],
}, (d) => {
  if (!d.predicted || !d.gold_probabilities) return null;
  return Math.abs(expectedLevel(d.predicted) - expectedLevel(d.gold_probabilities));
});

/** `score_within_one`: the predicted top level is within one level of the gold label. */
export const SCORE_WITHIN_ONE: AdditiveMetric = meanMetric({
  name: "score_within_one",
  label: "Score within one",
  description:
    "Share of score decisions whose top predicted level is within one level of the gold label; errors are misses",
  over: "all",
  higherIsBetter: true,
  range: [0, 1],
  format: "percent",
  types: ["score"],
}, (d) => {
  // Every covered decision counts; a failed or unanswered one is a miss (0).
  const top = d.predicted ? topOf(d.predicted) : null;
  if (top === null || d.gold === undefined || !isAnswered(d)) return 0;
  return Math.abs(Number(top.key) - Number(d.gold)) <= 1 ? 1 : 0;
});

/** The ordinal measures, in report order. */
export const ORDINAL_METRICS: readonly AdditiveMetric[] = [SCORE_MAE, SCORE_WITHIN_ONE];
