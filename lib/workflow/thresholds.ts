/**
 * Thresholds are results: each becomes `{metric, op, limit, value, pass}`.
 *
 * @module
 */
import type { ThresholdResult } from "../record/mod.ts";
import type { ThresholdSpec } from "./schemas.ts";

/**
 * Evaluates thresholds against a summary. A metric that is n/a fails its threshold.
 *
 * @param specs The workflow's thresholds.
 * @param values Metric values by name (null = n/a).
 * @returns One result per threshold.
 */
export function evaluateThresholds(
  specs: readonly ThresholdSpec[],
  values: Readonly<Record<string, number | null | undefined>>,
): ThresholdResult[] {
  return specs.map((t) => {
    const value = values[t.metric] ?? null;
    let pass = false;
    if (value !== null) {
      if (t.op === ">=") pass = value >= t.limit;
      else if (t.op === ">") pass = value > t.limit;
      else if (t.op === "<=") pass = value <= t.limit;
      else pass = value < t.limit;
    }
    return { metric: t.metric, op: t.op, limit: t.limit, value, pass };
  });
}
