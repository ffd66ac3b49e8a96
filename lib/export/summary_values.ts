/**
 * Reading metric values out of a run summary, whatever its record version: run.json v1 keeps each
 * headline metric at the top level (`summary.accuracy`), v2 keeps them in `summary.metrics`. The
 * view and every export read metrics through these two functions only, and list metrics through
 * {@linkcode SUMMARY_METRICS} (the metric registry's definitions, in report order).
 *
 * @module
 */
import { type Interval, METRIC_REGISTRY, type MetricDefinition } from "../metrics/mod.ts";

/** Every registered metric, in report order (name, label, range, direction, format). */
export const SUMMARY_METRICS: readonly MetricDefinition[] = METRIC_REGISTRY;

/** A run summary of either record version (`run.json`'s `summary`, or a `Summary`), or none. */
export type SummaryLike = object | null | undefined;

function fields(summary: SummaryLike): Readonly<Record<string, unknown>> | null {
  return summary ? summary as Readonly<Record<string, unknown>> : null;
}

function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * One metric's value from a run summary.
 *
 * @param summary `run.json`'s `summary` (v1 or v2), or null for a run still running.
 * @param name Metric name, e.g. `accuracy` or `nll`.
 * @returns The value, or null when the metric is n/a or the summary does not hold it (an older
 *   run has no `nll`).
 * @example
 * ```ts
 * import { metricOf } from "./summary_values.ts";
 * metricOf({ accuracy: 0.75 }, "accuracy"); // 0.75 (run.json v1)
 * metricOf({ metrics: { accuracy: 0.75, nll: null } }, "nll"); // null (v2)
 * metricOf({ accuracy: 0.75 }, "nll"); // null: v1 runs have no nll
 * ```
 */
export function metricOf(summary: SummaryLike, name: string): number | null {
  const s = fields(summary);
  if (!s) return null;
  const metrics = s.metrics;
  if (typeof metrics === "object" && metrics !== null && Object.hasOwn(metrics, name)) {
    return finite((metrics as Record<string, unknown>)[name]);
  }
  return finite(s[name]);
}

/**
 * One metric's bootstrap interval from a run summary.
 *
 * @param summary `run.json`'s `summary` (v1 or v2), or null.
 * @param name Metric name.
 * @returns `[lo, hi]`, or null when the summary has none for that metric.
 */
export function intervalOf(summary: SummaryLike, name: string): Interval | null {
  const intervals = fields(summary)?.intervals;
  if (typeof intervals !== "object" || intervals === null) return null;
  const value = (intervals as Record<string, unknown>)[name];
  if (!Array.isArray(value) || value.length !== 2) return null;
  const lo = finite(value[0]);
  const hi = finite(value[1]);
  return lo === null || hi === null ? null : [lo, hi];
}

/**
 * A count from a run summary (`decisions`, `cases`, `answered`, `errors`).
 *
 * @param summary `run.json`'s `summary`, or null.
 * @param name Field name.
 * @returns The count, or null when absent.
 */
export function countOf(summary: SummaryLike, name: string): number | null {
  return finite(fields(summary)?.[name]);
}
