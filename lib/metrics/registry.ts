/**
 * The metric registry: every aggregate metric is one {@linkcode MetricDefinition}, and everything
 * that computes, bootstraps, checks or shows metrics (summaries, breakdowns, thresholds, run.json,
 * the SQLite index, the three report formats) loops over {@linkcode METRIC_REGISTRY}.
 *
 * A definition says what the metric is over (all decisions, or answered ones), which question
 * types it covers, its metadata (`higherIsBetter`, range) and how it is computed. Two forms:
 * - **additive**: each decision adds into a fixed number of running totals (`width`), and
 *   `value` turns summed totals into the metric. The Poisson bootstrap keeps the same totals per
 *   replicate, each case added times its weight.
 * - **sample**: for estimators that are not sums (equal-mass bins, ranks, grouping by forecast),
 *   `value` reads a {@linkcode Sketch}: a summary of the covered decisions fed one decision at a
 *   time whose memory is bounded whatever their number (a histogram of confidences, per-question
 *   bins), which keeps its own replicates for the bootstrap. The metric's `description` names the
 *   estimator the sketch gives.
 *
 * @module
 */
import { SKETCH_CELLS } from "./_cells.ts";
import { coverageKey, covers, MetricGroup } from "./_group.ts";
import { HEADLINE_METRICS } from "./headline.ts";
import { CALIBRATION_METRICS } from "./calibration.ts";
import { MURPHY_METRICS } from "./murphy.ts";
import { SELECTIVE_METRICS } from "./selective.ts";
import { ORDINAL_METRICS } from "./ordinal.ts";

/** Question types a metric may be restricted to. */
export type MetricQuestionType = "choice" | "score" | "noul";

/** The fields a metric reads from a decision (a `DecisionRecord` has them all). */
export interface MetricInput {
  /** Case id: the unit the bootstrap resamples. */
  case?: string | undefined;
  /** Question type (needed by metrics restricted to some types). */
  type?: string | undefined;
  /** Question name. */
  question?: string | undefined;
  /** Workflow (or lane) of the case. */
  workflow?: string | undefined;
  /** The predicted answer equals the gold label (false on error; null without gold). */
  correct?: boolean | null | undefined;
  /** The predicted answer's probability, null when not answered. */
  confidence?: number | null | undefined;
  /** KL(gold ‖ predicted) in nats, null when not answered. */
  kl?: number | null | undefined;
  /** Brier score, null when not answered. */
  brier?: number | null | undefined;
  /** The predicted distribution keyed in option order, null when not answered. */
  predicted?: Readonly<Record<string, number>> | null | undefined;
  /** The gold label; null when the decision has none (an unlabelled row: no metric covers it). */
  gold?: string | null | undefined;
  /** The gold distribution (null without gold). */
  gold_probabilities?: Readonly<Record<string, number>> | null | undefined;
  /** The failure, or null (or absent) when the decision was answered. */
  error?: unknown | undefined;
}

/** What every metric definition has, whatever its form. */
export interface MetricBase {
  /** Registry key, used in run.json, SQLite columns and workflow thresholds (`[a-z0-9_]+`). */
  readonly name: string;
  /** Display label in reports (the headline table, cards, comparisons). */
  readonly label: string;
  /** Short label for table columns and the terminal; absent: `label`. */
  readonly short?: string | undefined;
  /** A note printed after the value in the terminal summary (what the estimator is not). */
  readonly note?: string | undefined;
  /**
   * Shown as a column of the breakdown, comparison and engine tables (the headline metrics);
   * every metric is in the headline table, run.json and the index either way.
   */
  readonly column?: boolean | undefined;
  /** One-line description that names the estimator. */
  readonly description: string;
  /** `all`: errors count (as misses); `answered`: decisions with an error are left out. */
  readonly over: "all" | "answered";
  /** True when a larger value is better. */
  readonly higherIsBetter: boolean;
  /** The range the metric can take, inclusive. */
  readonly range: readonly [number, number];
  /** How reports print it: a percentage (accuracy-like) or a plain number. */
  readonly format: "percent" | "number";
  /** Only decisions of these question types count; absent: every type. */
  readonly types?: readonly MetricQuestionType[] | undefined;
}

/** A metric computed from per-case running totals. */
export interface AdditiveMetric extends MetricBase {
  /** Additive form. */
  readonly kind: "additive";
  /** Number of running totals per case. */
  readonly width: number;
  /**
   * The additive metric whose totals this one's `add` makes too (the same width and the same
   * contribution from each decision, over the same decisions): a bootstrap that holds both sums
   * them once, and this metric's `value` reads them. @default undefined (its own totals)
   */
  readonly totalsOf?: string | undefined;
  /**
   * Adds one covered decision's contribution to `totals[offset … offset + width)`.
   *
   * @param totals The running totals.
   * @param offset Where this metric's totals start.
   * @param decision A decision the metric covers.
   */
  add(totals: Float64Array, offset: number, decision: MetricInput): void;
  /**
   * The metric from summed totals.
   *
   * @param totals The summed totals.
   * @param offset Where this metric's totals start.
   * @returns The value, or null when it is n/a (nothing to average).
   */
  value(totals: Float64Array, offset: number): number | null;
}

/** How a sketch's state is made. */
export interface SketchOptions {
  /** Replicates of the Poisson bootstrap the state keeps (0: the point estimate only). */
  replicates: number;
  /** Most cells of a histogram the sketch keeps (its memory bound). */
  cap: number;
}

/**
 * A bounded summary of the decisions some sample metrics cover, fed one decision at a time in any
 * order: the same decisions give the same state (up to the last bits of floating-point sums of
 * the point estimate; replicate sums are exact). Metrics naming the same sketch read one state,
 * so they must cover the same decisions.
 */
export interface Sketch {
  /** Identity: metrics whose sketch has this name share one state. */
  readonly name: string;
  /**
   * Makes an empty state.
   *
   * @param options Replicates and cap.
   * @returns The state.
   */
  create(options: SketchOptions): unknown;
  /**
   * Adds one covered decision.
   *
   * @param state The state.
   * @param decision The decision.
   * @param weights Its case's Poisson weight per replicate, or null when the state keeps none.
   */
  add(state: unknown, decision: MetricInput, weights: Uint8Array | null): void;
  /**
   * Adds another state's decisions (made with the same options).
   *
   * @param into The state added to.
   * @param from The other state.
   */
  merge(into: unknown, from: unknown): void;
  /**
   * The bytes a state holds (its typed arrays; map entries at 16 bytes each).
   *
   * @param state The state.
   * @returns The size in bytes.
   */
  bytes(state: unknown): number;
}

/** A metric computed from a bounded summary of the covered decisions. */
export interface SampleMetric extends MetricBase {
  /** Sample form. */
  readonly kind: "sample";
  /** The summary it reads. */
  readonly sketch: Sketch;
  /**
   * The metric from the sketch's state.
   *
   * @param state The sketch's state, fed the covered decisions.
   * @param replicate −1 for the point estimate, else the bootstrap replicate (0 … B − 1).
   * @returns The value, or null when it is n/a.
   */
  value(state: unknown, replicate: number): number | null;
}

export { SKETCH_CELLS };

/** Names of the headline metrics: every summary has them. */
export const HEADLINE_METRIC_NAMES = ["accuracy", "kl", "brier", "ece", "nll"] as const;

/** The name of a headline metric. */
export type HeadlineMetricName = typeof HEADLINE_METRIC_NAMES[number];

/**
 * Values keyed by metric name: the headline metrics are always present; other registered metrics
 * may be (a summary written by an older version lacks them).
 */
export type ByMetric<T> = Record<HeadlineMetricName, T> & Record<string, T | undefined>;

/** One registered metric. */
export type MetricDefinition = AdditiveMetric | SampleMetric;

/** Every metric decibench computes, in report order. */
export const METRIC_REGISTRY: readonly MetricDefinition[] = [
  ...HEADLINE_METRICS,
  // Calibration measures: lib/metrics/{calibration,murphy,selective,ordinal}.ts.
  ...CALIBRATION_METRICS,
  ...MURPHY_METRICS,
  ...SELECTIVE_METRICS,
  ...ORDINAL_METRICS,
];

/** The metrics shown as columns of breakdown, comparison and engine tables. */
export const COLUMN_METRICS: readonly MetricDefinition[] = METRIC_REGISTRY.filter((m) => m.column);

/**
 * The column metrics a breakdown table shows with their interval (the percent ones: accuracy);
 * the report model bootstraps breakdown groups for these only.
 */
export const BREAKDOWN_INTERVAL_METRICS: readonly MetricDefinition[] = COLUMN_METRICS.filter((m) =>
  m.format === "percent"
);

const BY_NAME: ReadonlyMap<string, MetricDefinition> = new Map(
  METRIC_REGISTRY.map((m) => [m.name, m]),
);

/** Names of every registered metric, in report order. */
export const METRIC_NAMES: readonly string[] = METRIC_REGISTRY.map((m) => m.name);

/**
 * Looks a metric up by name.
 *
 * @param name The registry key, e.g. `accuracy`.
 * @returns The definition, or undefined when no metric has that name.
 * @example
 * ```ts
 * import { metricByName } from "./registry.ts";
 * if (metricByName("nll")?.higherIsBetter !== false) throw new Error("lower nll is better");
 * ```
 */
export function metricByName(name: string): MetricDefinition | undefined {
  return BY_NAME.get(name);
}

export { coverageKey, covers };

/**
 * Computes one metric over decisions (the point estimate).
 *
 * @param metric The metric.
 * @param decisions Scored decisions; those the metric does not cover are left out.
 * @returns The value, or null when it is n/a.
 * @example
 * ```ts
 * import { computeMetric, metricByName } from "./registry.ts";
 * const accuracy = metricByName("accuracy")!;
 * const d = { case: "a", type: "noul", confidence: 0.9, kl: 0.1, brier: 0.02, error: null };
 * computeMetric(accuracy, [{ ...d, correct: true }, { ...d, correct: false }]); // 0.5
 * ```
 */
export function computeMetric(
  metric: MetricDefinition,
  decisions: readonly MetricInput[],
): number | null {
  return computeMetrics(decisions, [metric])[metric.name] ?? null;
}

/**
 * Computes metrics over decisions (the point estimates).
 *
 * @param decisions Scored decisions.
 * @param metrics The metrics to compute.
 * @returns The values keyed by metric name (null when n/a).
 */
export function computeMetrics(
  decisions: readonly MetricInput[],
  metrics: readonly MetricDefinition[] = METRIC_REGISTRY,
): ByMetric<number | null> {
  const group = new MetricGroup({ metrics, intervalMetrics: [], resamples: 0, cap: SKETCH_CELLS });
  group.addCase(decisions, null);
  return group.values() as ByMetric<number | null>;
}
