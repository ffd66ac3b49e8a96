/**
 * The metric registry: every aggregate metric is one {@linkcode MetricDefinition}, and everything
 * that computes, bootstraps, checks or shows metrics (summaries, breakdowns, thresholds, run.json,
 * the SQLite index, the three report formats) loops over {@linkcode METRIC_REGISTRY}.
 *
 * A definition says what the metric is over (all decisions, or answered ones), which question
 * types it covers, its metadata (`higherIsBetter`, range) and how it is computed. Two forms:
 * - **additive**: each decision adds into a fixed number of per-case running totals
 *   (`width`), and `value` turns summed totals into the metric. The bootstrap resamples cases
 *   by summing their totals, for all additive metrics at once over typed arrays.
 * - **sample**: `compute` reads the whole list of covered decisions (for estimators that are not
 *   sums, such as equal-mass bins). The bootstrap recomputes it on each resampled list.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
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
  /** The predicted answer equals the gold label (false on error). */
  correct?: boolean | undefined;
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

/** A metric computed from the whole list of covered decisions. */
export interface SampleMetric extends MetricBase {
  /** Sample form. */
  readonly kind: "sample";
  /**
   * The metric over the covered decisions.
   *
   * @param decisions The decisions the metric covers (already filtered by `over` and `types`).
   * @returns The value, or null when it is n/a.
   */
  compute(decisions: readonly MetricInput[]): number | null;
  /**
   * Optional weighted form, the bootstrap's fast path: reads the covered decisions once (sorting,
   * grouping) and returns a function giving the metric over the multiset in which decision `i`
   * appears `weights[i]` times — the value `compute` gives on that multiset — so a resample
   * costs one pass instead of a rebuilt, re-sorted list. Metrics given the same array may share
   * the work, so neither the array nor its decisions may change after the call. A caller that
   * refills one array passes a `stamp` it changes with every refill (the bootstrap passes the
   * resample's index): metrics that share work then compare the array and the stamp, not the
   * weights one by one.
   *
   * @param decisions The covered decisions, in a fixed order.
   * @returns The metric for a weight (a whole number ≥ 0) per decision.
   */
  prepare?:
    | ((
      decisions: readonly MetricInput[],
    ) => (weights: Float64Array, stamp?: number) => number | null)
    | undefined;
}

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

/**
 * Whether a metric covers a decision: it has gold (a decision whose `gold` is null — a user
 * question set's unlabelled row — is asked and recorded but never scored, not even as a miss),
 * its type is one of the metric's types, and it is answered when the metric is over answered
 * decisions.
 *
 * @param metric The metric.
 * @param decision The decision.
 * @returns True when the decision counts for the metric.
 */
export function covers(metric: MetricBase, decision: MetricInput): boolean {
  if (decision.gold === null) return false;
  if (metric.types && !metric.types.includes(decision.type as MetricQuestionType)) return false;
  return metric.over === "all" || isAnswered(decision);
}

/**
 * What decides which decisions a metric covers (its `over` and `types`): metrics with the same
 * key cover the same decisions, so they can share one filtered list or one set of totals.
 *
 * @param metric The metric.
 * @returns The key, e.g. `answered|noul`.
 */
export function coverageKey(metric: MetricBase): string {
  return `${metric.over}|${metric.types?.join(",") ?? "*"}`;
}

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
  return computeOverCovered(metric, decisions.filter((d) => covers(metric, d)));
}

/** A metric over the decisions it covers (already filtered). */
function computeOverCovered(
  metric: MetricDefinition,
  covered: readonly MetricInput[],
): number | null {
  if (metric.kind === "sample") return metric.compute(covered);
  const totals = new Float64Array(metric.width);
  for (const d of covered) metric.add(totals, 0, d);
  return metric.value(totals, 0);
}

/**
 * Computes every registered metric over decisions.
 *
 * @param decisions Scored decisions.
 * @param metrics The metrics to compute.
 * @returns The values keyed by metric name (null when n/a).
 */
export function computeMetrics(
  decisions: readonly MetricInput[],
  metrics: readonly MetricDefinition[] = METRIC_REGISTRY,
): ByMetric<number | null> {
  const values: Record<string, number | null> = {};
  // Metrics covering the same decisions (same `over` and `types`) read one filtered list.
  const covered = new Map<string, MetricInput[]>();
  for (const metric of metrics) {
    const key = coverageKey(metric);
    let list = covered.get(key);
    if (list === undefined) covered.set(key, list = decisions.filter((d) => covers(metric, d)));
    values[metric.name] = computeOverCovered(metric, list);
  }
  return values as ByMetric<number | null>;
}
