/**
 * Thresholds are results: each becomes `{metric, op, limit, value, pass}` (plus the question,
 * lane and bound it names), and the exit status follows them. Values come from the metric
 * registry over the decisions the threshold covers; a bound comes from the seeded bootstrap.
 *
 * @module
 */
import type { Case } from "../dataset/mod.ts";
import {
  type BootstrapInput,
  bootstrapIntervals,
  computeMetric,
  metricByName,
  type MetricDefinition,
} from "../metrics/mod.ts";
import type { ThresholdResult } from "../record/mod.ts";
import { WorkflowError } from "./load.ts";
import type { ThresholdSpec } from "./schemas.ts";

/** The fields thresholds read from a decision (a `DecisionRecord` has them all). */
export interface ThresholdInput extends BootstrapInput {
  /** Question name. */
  question: string;
  /** Lane (Typed Decisions' workflow, or the user dataset's lane value). */
  workflow: string;
}

/** Options of {@linkcode evaluateThresholds}. */
export interface EvaluateThresholdsOptions {
  /**
   * Seed of the bootstrap that gives `lower` and `upper` bounds (the workflow's `seed`).
   * @default 0
   */
  seed?: number;
  /**
   * Bootstrap resamples for bounds.
   * @default 1000
   */
  resamples?: number;
}

/**
 * The decisions a threshold covers: those of its question and lane, when it names them.
 *
 * @param spec The threshold.
 * @param decisions Scored decisions.
 * @returns The decisions it is evaluated on.
 */
export function thresholdDecisions<T extends ThresholdInput>(
  spec: Pick<ThresholdSpec, "question" | "lane">,
  decisions: readonly T[],
): T[] {
  return decisions.filter((d) =>
    (spec.question === undefined || d.question === spec.question) &&
    (spec.lane === undefined || d.workflow === spec.lane)
  );
}

function compare(value: number, op: ThresholdSpec["op"], limit: number): boolean {
  if (op === ">=") return value >= limit;
  if (op === ">") return value > limit;
  if (op === "<=") return value <= limit;
  return value < limit;
}

/**
 * The bootstrap interval of a metric over decisions (resampling cases; decisions without gold are
 * covered by no metric), or null when it has none.
 */
function intervalOf(
  metric: MetricDefinition,
  decisions: readonly ThresholdInput[],
  options: EvaluateThresholdsOptions,
): [number, number] | null {
  const intervals = bootstrapIntervals(decisions, {
    seed: options.seed ?? 0,
    metrics: [metric],
    ...(options.resamples !== undefined ? { resamples: options.resamples } : {}),
  });
  return intervals[metric.name] ?? null;
}

/**
 * Evaluates thresholds over a run's decisions. Each threshold's metric is computed with its
 * registry definition over the decisions of its question and lane (all of them when it names
 * neither); with `bound: "lower"` or `"upper"` the bound of the metric's 95% bootstrap interval
 * (resampling cases, seeded) is compared instead of the estimate. A value that is n/a fails.
 *
 * @param specs The workflow's thresholds.
 * @param decisions The run's scored decisions.
 * @param options Bootstrap seed and resamples for bounds.
 * @returns One result per threshold, recording the value compared (and the estimate beside a
 *   bound).
 * @throws {RangeError} When a threshold names a metric that is not registered.
 * @example
 * ```ts
 * import { evaluateThresholds } from "./thresholds.ts";
 * const d = { case: "a", workflow: "w", type: "noul", confidence: 0.9, kl: 0.1, brier: 0.02, error: null };
 * const [result] = evaluateThresholds([{ metric: "accuracy", question: "q", op: ">=", limit: 0.5 }], [
 *   { ...d, question: "q", correct: true },
 *   { ...d, question: "other", correct: false },
 * ]);
 * result?.value; // 1: only question q counts
 * ```
 */
export function evaluateThresholds(
  specs: readonly ThresholdSpec[],
  decisions: readonly ThresholdInput[],
  options: EvaluateThresholdsOptions = {},
): ThresholdResult[] {
  return specs.map((t) => {
    const metric = metricByName(t.metric);
    if (!metric) throw new RangeError(`Cannot check threshold: no metric "${t.metric}"`);
    const covered = thresholdDecisions(t, decisions);
    const estimate = computeMetric(metric, covered);
    let value = estimate;
    if (t.bound === "lower" || t.bound === "upper") {
      const interval = intervalOf(metric, covered, options);
      value = interval === null ? null : t.bound === "lower" ? interval[0] : interval[1];
    }
    const bounded = t.bound === "lower" || t.bound === "upper";
    const result: ThresholdResult = {
      metric: t.metric,
      ...(t.question !== undefined ? { question: t.question } : {}),
      ...(t.lane !== undefined ? { lane: t.lane } : {}),
      op: t.op,
      limit: t.limit,
      ...(t.bound !== undefined ? { bound: t.bound } : {}),
      value,
      ...(bounded ? { estimate } : {}),
      pass: value !== null && compare(value, t.op, t.limit),
    };
    return result;
  });
}

/**
 * Refuses thresholds that name a question or lane none of the selected cases has (they could
 * only fail), before anything is sent.
 *
 * @param specs The workflow's thresholds.
 * @param cases The selected cases.
 * @param file The workflow file for the message.
 * @throws {WorkflowError} Naming the threshold, the name and what the cases have.
 */
export function checkThresholdTargets(
  specs: readonly ThresholdSpec[],
  cases: readonly Case[],
  file: string,
): void {
  const questions = new Set(cases.flatMap((c) => Object.keys(c.questions)));
  const lanes = new Set(cases.map((c) => c.workflow));
  for (const [i, t] of specs.entries()) {
    const miss = t.question !== undefined && !questions.has(t.question)
      ? ["question", t.question, questions] as const
      : t.lane !== undefined && !lanes.has(t.lane)
      ? ["lane", t.lane, lanes] as const
      : null;
    if (miss === null) continue;
    const [field, name, known] = miss;
    const list = [...known].sort();
    throw new WorkflowError(
      `Cannot load workflow "${file}": field "thresholds.${i}.${field}": no selected case has ${field} "${name}" (${
        field === "lane" ? "lanes" : "questions"
      }: ${list.slice(0, 20).join(", ")}${list.length > 20 ? ", …" : ""})`,
    );
  }
}
