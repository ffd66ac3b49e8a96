/**
 * Metrics over scored decisions: scoring one decision, aggregate metrics with their
 * metadata, seeded Poisson bootstrap intervals over cases, run summaries and breakdowns with the
 * star rating, a paired comparison of two runs, and a seeded generator for shuffles.
 *
 * A run feeds one `MetricsAccumulator` case by case, in any order, in bounded memory; the
 * functions over plain arrays (`summarize`, `breakdown`, `bootstrapIntervals`, `computeMetrics`)
 * give the same figures from `DecisionRecord`s (or any objects with the fields a function reads).
 * Metrics with nothing to average are `null` ("n/a").
 *
 * @example
 * ```ts
 * import { rating, scoreDecision, summarize } from "./mod.ts";
 * const score = scoreDecision(["yes", "no"], { yes: 0.7, no: 0.3 }, {
 *   label: "yes",
 *   probabilities: { yes: 1, no: 0 },
 * });
 * const summary = summarize([{
 *   case: "c1",
 *   ...score,
 *   error: null,
 *   latency_ms: 20,
 *   input_tokens: 300,
 * }]);
 * rating(summary); // "★★★"
 * ```
 *
 * @module
 */
export * from "./score.ts";
export * from "./registry.ts";
export * from "./headline.ts";
export * from "./aggregate.ts";
export * from "./rng.ts";
export * from "./bootstrap.ts";
export * from "./summary.ts";
export * from "./paired.ts";
export * from "./accumulator.ts";
// The calibration measures' registry definitions are reached through the registry; these are
// the estimators and analyses behind them.
export {
  type Binning,
  type CalibrationBin,
  type CalibrationBinOptions,
  calibrationBins,
  type ConfidenceInput,
  debiasedEceOfBins,
  eceOfBins,
  mceOfBins,
  perQuestionEce,
} from "./calibration.ts";
export { type MurphyDecomposition, murphyDecomposition, type MurphyInput } from "./murphy.ts";
export {
  accuracyAtCoverage,
  aurcOf,
  type CoverageThreshold,
  coverageThresholds,
  riskCoverage,
  type RiskCoveragePoint,
  type SelectiveInput,
} from "./selective.ts";
export * from "./scorer_profile.ts";
export { softmaxInPlace } from "./softmax.ts";
export * from "./temperature.ts";
export * from "./stability.ts";
