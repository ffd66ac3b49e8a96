/**
 * Thresholds are results: each becomes `{metric, op, limit, value, pass}` (plus the question,
 * lane and bound it names), and the exit status follows them. Values come from the metric
 * registry over the decisions the threshold covers; a bound comes from the seeded bootstrap.
 *
 * @module
 */
import type { Case, QuestionSet } from "../dataset/mod.ts";
import {
  type BootstrapInput,
  type BreakdownInput,
  metricByName,
  type MetricDefinition,
  MetricsAccumulator,
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
  resamples?: number | undefined;
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
 * The thresholds of a run, summed case by case: one accumulator per threshold over the decisions
 * of its question and lane, with the bootstrap only for a threshold on a bound. Memory depends on
 * the number of thresholds, never on the number of decisions.
 */
export class ThresholdAccumulator {
  readonly #entries: {
    spec: ThresholdSpec;
    metric: MetricDefinition;
    acc: MetricsAccumulator;
    decisions: number;
  }[];

  /**
   * Empty accumulators for thresholds.
   *
   * @param specs The workflow's thresholds.
   * @param options Bootstrap seed and resamples for bounds.
   * @throws {RangeError} When a threshold names a metric that is not registered.
   */
  constructor(specs: readonly ThresholdSpec[], options: EvaluateThresholdsOptions = {}) {
    this.#entries = specs.map((spec) => {
      const metric = metricByName(spec.metric);
      if (!metric) throw new RangeError(`Cannot check threshold: no metric "${spec.metric}"`);
      const bounded = spec.bound === "lower" || spec.bound === "upper";
      const acc = new MetricsAccumulator({
        seed: options.seed ?? 0,
        ...(options.resamples !== undefined ? { resamples: options.resamples } : {}),
        metrics: [metric],
        intervalMetrics: bounded ? [metric] : [],
        breakdowns: [],
      });
      return { spec, metric, acc, decisions: 0 };
    });
  }

  /** Bytes of accumulator state held. */
  get bytes(): number {
    let bytes = 0;
    for (const e of this.#entries) bytes += e.acc.bytes;
    return bytes;
  }

  /**
   * Adds one case's decisions (each case once).
   *
   * @param id The case id.
   * @param decisions The case's decisions.
   */
  addCase(id: string, decisions: readonly ThresholdInput[]): void {
    for (const e of this.#entries) {
      const covered = thresholdDecisions(e.spec, decisions);
      if (covered.length === 0) continue;
      e.decisions += covered.length;
      e.acc.addCase(id, covered.map(asSummed));
    }
  }

  /**
   * The thresholds' results over the cases added.
   *
   * @returns One result per threshold.
   */
  results(): ThresholdResult[] {
    return this.#entries.map(({ spec: t, metric, acc, decisions }) => {
      // Against a baseline: filled in when the run ends (`withBaselines`), from both runs' records.
      if (t.baseline !== undefined) return baselinePlaceholder(t);
      const summary = decisions > 0 ? acc.summary() : null;
      const estimate = summary?.metrics[metric.name] ?? null;
      const bounded = t.bound === "lower" || t.bound === "upper";
      let value = estimate;
      if (bounded) {
        const interval = summary?.intervals[metric.name] ?? null;
        value = interval === null ? null : t.bound === "lower" ? interval[0] : interval[1];
      }
      const result: ThresholdResult = {
        metric: t.metric,
        ...(t.question !== undefined ? { question: t.question } : {}),
        ...(t.lane !== undefined ? { lane: t.lane } : {}),
        op: t.op ?? ">=",
        limit: t.limit ?? 0,
        ...(t.bound !== undefined ? { bound: t.bound } : {}),
        value,
        ...(bounded ? { estimate } : {}),
        pass: value !== null && compare(value, t.op ?? ">=", t.limit ?? 0),
      };
      return result;
    });
  }
}

/**
 * The result of a threshold against a baseline before it is compared: n/a, failed.
 *
 * @param t The threshold (with `baseline`).
 * @returns Its result with no value yet.
 */
export function baselinePlaceholder(t: ThresholdSpec): ThresholdResult {
  const margin = t.margin ?? 0;
  return {
    metric: t.metric,
    ...(t.question !== undefined ? { question: t.question } : {}),
    ...(t.lane !== undefined ? { lane: t.lane } : {}),
    op: ">=",
    limit: margin === 0 ? 0 : -margin,
    bound: "lower",
    value: null,
    estimate: null,
    baseline: t.baseline as string,
    margin,
    interval: null,
    shared: 0,
    pass: false,
  };
}

/**
 * Evaluates thresholds over a run's decisions. Each threshold's metric is computed with its
 * registry definition over the decisions of its question and lane (all of them when it names
 * neither); with `bound: "lower"` or `"upper"` the bound of the metric's 95% bootstrap interval
 * (resampling cases, seeded) is compared instead of the estimate. A value that is n/a fails.
 * A run computes the same through {@linkcode ThresholdAccumulator}, case by case.
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
  const acc = new ThresholdAccumulator(specs, options);
  for (const [id, list] of groupBy(decisions, (d) => d.case)) acc.addCase(id, list);
  return acc.results();
}

/** A decision as the accumulator reads it (latency and tokens play no part in a threshold). */
function asSummed(d: ThresholdInput): BreakdownInput {
  return { latency_ms: null, input_tokens: null, type: "", ...d } as BreakdownInput;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list === undefined) groups.set(k, [item]);
    else list.push(item);
  }
  return groups;
}

/** Options of {@linkcode checkThresholdTargets}. */
export interface CheckThresholdTargetsOptions {
  /**
   * How the selection is partial (`--limit 3`, `--sample 20`), or null when every eligible case
   * is asked. A partial selection's threshold whose question or lane no selected case has, but
   * the eligible cases do, is not evaluated instead of refused.
   * @default null
   */
  partial?: string | null | undefined;
  /**
   * The lanes and questions of every eligible case (the selection's lanes and ids, before its
   * limit or sample).
   * @default the selected cases'
   */
  eligible?: { lanes: readonly string[]; questions: readonly string[] } | undefined;
}

/**
 * Refuses thresholds that name a question or lane none of the selected cases has (they could
 * only fail), before anything is sent. When the selection is partial (`--limit`, `--sample`) and
 * the set has the question or lane but no selected case does, the threshold is not refused: it
 * is not evaluated (it neither passes nor fails), and the reason is returned.
 *
 * @param specs The workflow's thresholds.
 * @param cases The selected cases, or what an opened question set knows of them (its lanes and
 *   question names).
 * @param file The workflow file for the message.
 * @param options Whether the selection is partial, and what the eligible cases have.
 * @returns The thresholds not evaluated: their index and why.
 * @throws {WorkflowError} Naming the threshold, the name and what the cases have.
 */
export function checkThresholdTargets(
  specs: readonly ThresholdSpec[],
  cases: readonly Case[] | Pick<QuestionSet, "lanes" | "questions">,
  file: string,
  options: CheckThresholdTargetsOptions = {},
): Map<number, string> {
  const questions = new Set(
    "lanes" in cases ? cases.questions : cases.flatMap((c) => Object.keys(c.questions)),
  );
  const lanes = new Set("lanes" in cases ? cases.lanes.keys() : cases.map((c) => c.workflow));
  const partial = options.partial ?? null;
  const eligibleQuestions = new Set(options.eligible?.questions ?? questions);
  const eligibleLanes = new Set(options.eligible?.lanes ?? lanes);
  const notEvaluated = new Map<number, string>();
  for (const [i, t] of specs.entries()) {
    const miss = t.question !== undefined && !questions.has(t.question)
      ? ["question", t.question, questions, eligibleQuestions] as const
      : t.lane !== undefined && !lanes.has(t.lane)
      ? ["lane", t.lane, lanes, eligibleLanes] as const
      : null;
    if (miss === null) continue;
    const [field, name, known, eligible] = miss;
    if (partial !== null && eligible.has(name)) {
      notEvaluated.set(i, `no case selected by ${partial} has ${field} "${name}"`);
      continue;
    }
    const list = [...known].sort();
    throw new WorkflowError(
      `Cannot load workflow "${file}": field "thresholds.${i}.${field}": no selected case has ${field} "${name}" (${
        field === "lane" ? "lanes" : "questions"
      }: ${list.slice(0, 20).join(", ")}${list.length > 20 ? ", …" : ""})`,
    );
  }
  return notEvaluated;
}

/**
 * Marks thresholds as not evaluated: value null, `pass` null (neither a pass nor a failure) and
 * the reason in `not_evaluated`.
 *
 * @param results The thresholds' results, in the workflow's order.
 * @param notEvaluated Index and reason of each threshold not evaluated.
 * @returns The results with those marked.
 */
export function markNotEvaluated(
  results: readonly ThresholdResult[],
  notEvaluated: ReadonlyMap<number, string>,
): ThresholdResult[] {
  return results.map((r, i) => {
    const reason = notEvaluated.get(i);
    if (reason === undefined) return r;
    return {
      ...r,
      value: null,
      ...(r.estimate !== undefined ? { estimate: null } : {}),
      pass: null,
      not_evaluated: reason,
    };
  });
}
