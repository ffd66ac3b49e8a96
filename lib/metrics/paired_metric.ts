/**
 * The paired difference of any bootstrapped metric between two runs fed the same cases: both
 * accumulators share the seed, so in replicate r each case weighs the same in both, and the
 * interval is the percentile one of the replicates' differences.
 *
 * @module
 */
import type { MetricsAccumulator } from "./accumulator.ts";
import type { Interval } from "./bootstrap.ts";
import type { MetricDefinition } from "./registry.ts";
import { percentileInterval } from "./_quantile.ts";

/** A metric's paired difference between two runs. */
export interface PairedMetricDifference {
  /** The difference of the point values (`this − baseline`, mirrored when lower is better), or null. */
  estimate: number | null;
  /** Its paired bootstrap interval, or null when no replicate has both values. */
  interval: Interval | null;
}

/**
 * The difference of a metric between two accumulators fed the same cases with the same seed and
 * replicates, oriented so that a positive difference is better: `current − baseline` for a metric
 * where higher is better, `baseline − current` where lower is better.
 *
 * @param current This run's accumulator (the metric bootstrapped).
 * @param baseline The baseline's accumulator (same seed and replicates).
 * @param metric The metric.
 * @param level Interval coverage. @default 0.95
 * @returns The point difference and its paired percentile interval.
 * @throws {RangeError} When the metric is not bootstrapped in both.
 * @example
 * ```ts
 * import { MetricsAccumulator } from "./accumulator.ts";
 * import { metricByName } from "./registry.ts";
 * import { pairedMetricDifference } from "./paired_metric.ts";
 * const accuracy = metricByName("accuracy")!;
 * const make = () => new MetricsAccumulator({ metrics: [accuracy], intervalMetrics: [accuracy], breakdowns: [] });
 * const [a, b] = [make(), make()];
 * const d = (c: string, correct: boolean) => ({
 *   case: c, workflow: "w", question: "q", type: "noul", correct, error: null,
 *   confidence: 0.9, kl: 0.1, brier: 0.1, latency_ms: null, input_tokens: null,
 * });
 * for (const c of ["1", "2", "3", "4"]) { a.addCase(c, [d(c, true)]); b.addCase(c, [d(c, c !== "4")]); }
 * pairedMetricDifference(a, b, accuracy).estimate; // 0.25
 * ```
 */
export function pairedMetricDifference(
  current: MetricsAccumulator,
  baseline: MetricsAccumulator,
  metric: MetricDefinition,
  level = 0.95,
): PairedMetricDifference {
  const sign = metric.higherIsBetter === false ? -1 : 1;
  const a = current.summary().metrics[metric.name] ?? null;
  const b = baseline.summary().metrics[metric.name] ?? null;
  const estimate = a === null || b === null ? null : sign * (a - b);
  const ra = current.replicates(metric);
  const rb = baseline.replicates(metric);
  const deltas = new Float64Array(Math.min(ra.length, rb.length));
  let kept = 0;
  for (let r = 0; r < deltas.length; r++) {
    const d = sign * ((ra[r] as number) - (rb[r] as number));
    if (Number.isFinite(d)) deltas[kept++] = d;
  }
  return { estimate, interval: percentileInterval(deltas, kept, level) };
}
