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
export {
  argmax,
  type DecisionScore,
  type GoldDistribution,
  KL_FLOOR,
  scoreDecision,
} from "./score.ts";
export {
  type AdditiveMetric,
  BREAKDOWN_INTERVAL_METRICS,
  type ByMetric,
  COLUMN_METRICS,
  computeMetric,
  computeMetrics,
  HEADLINE_METRIC_NAMES,
  type HeadlineMetricName,
  METRIC_NAMES,
  METRIC_REGISTRY,
  type MetricBase,
  metricByName,
  type MetricDefinition,
  type MetricInput,
  type MetricQuestionType,
  type SampleMetric,
  type Sketch,
  type SketchOptions,
} from "./registry.ts";
export { MetricsAccumulator, type MetricsAccumulatorOptions } from "./accumulator.ts";
export {
  accuracy,
  type AccuracyInput,
  type BrierInput,
  type CalibrationInput,
  ece,
  meanBrier,
  meanConfidence,
  percentile,
  type ReliabilityRow,
  reliabilityTable,
} from "./aggregate.ts";
export { randomInt, seededRandom, shuffle } from "./rng.ts";
export {
  BootstrapAccumulator,
  type BootstrapAccumulatorOptions,
  type BootstrapInput,
  type BootstrapIntervals,
  bootstrapIntervals,
  type BootstrapOptions,
  type Interval,
} from "./bootstrap.ts";
export {
  breakdown,
  BreakdownAccumulator,
  type BreakdownInput,
  type BreakdownKey,
  type BreakdownOptions,
  type BreakdownRow,
  type LatencySummary,
  type PlannedCase,
  PRIOR_ACCURACY,
  rating,
  summarize,
  type Summary,
  type SummaryInput,
  type SummaryOptions,
  TEACHER_AGREEMENT,
} from "./summary.ts";
export {
  type McNemarCounts,
  type PairedComparison,
  pairedComparison,
  type PairedInput,
  type PairedOptions,
  type PairedRow,
  PairedTally,
  type PairedTallyOptions,
} from "./paired.ts";
export { type PairedMetricDifference, pairedMetricDifference } from "./paired_metric.ts";
export { type MurphyDecomposition, murphyDecomposition, type MurphyInput } from "./murphy.ts";
export {
  type CoverageThreshold,
  coverageThresholds,
  riskCoverage,
  type RiskCoveragePoint,
  type SelectiveInput,
} from "./selective.ts";
export { scorerProfile, type ScorerProfileInput, type ScorerProfileRow } from "./scorer_profile.ts";
export {
  type AddClassCaseOptions,
  AUROC_BINS,
  AUROC_INTERVAL_BINS,
  ClassAccumulator,
  type ClassInput,
  type ClassIntervals,
  type ClassOptions,
  type ClassQuestion,
  type ClassResults,
  classResults,
  type ClassRow,
  type ClassTable,
  ERROR_COLUMN,
  type QuestionClasses,
} from "./classes.ts";
export { softmaxInPlace } from "./softmax.ts";
export {
  applyCalibration,
  type CalibrationFigures,
  calibrationFigures,
  type CalibrationFiguresOptions,
  type FigureWithInterval,
  fitCalibration,
  type FittedCalibration,
  RECALIBRATION_METHODS,
  RECALIBRATION_REGISTRY,
  type RecalibrationDefinition,
  type RecalibrationMethod,
  recalibrationMethod,
  type ReliabilityBin,
} from "./recalibration.ts";
export {
  type LabelledDistribution,
  type TemperatureInput,
  type TemperatureOptions,
  type TemperatureRow,
  type TemperatureWhatIf,
  temperatureWhatIf,
} from "./temperature.ts";
export {
  type DriftSummary,
  type RepeatInput,
  type StabilityInput,
  type StabilityRow,
  type StabilitySummary,
  stabilitySummary,
} from "./stability.ts";
