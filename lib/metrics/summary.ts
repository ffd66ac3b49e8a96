/**
 * Run summaries: every headline metric with its bootstrap interval, latency, tokens, the
 * reliability table, breakdowns by type / workflow / question, and the star rating.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import { meanConfidence, percentile, type ReliabilityRow, reliabilityTable } from "./aggregate.ts";
import {
  type BootstrapInput,
  type BootstrapIntervals,
  bootstrapIntervals,
  type BootstrapOptions,
} from "./bootstrap.ts";
import { type ByMetric, computeMetrics, METRIC_REGISTRY } from "./registry.ts";

/** Accuracy of the dataset's prior (always answering each question's most common gold label). */
export const PRIOR_ACCURACY = 0.470;
/** Agreement of the teacher with itself across samples: the practical ceiling. */
export const TEACHER_AGREEMENT = 0.735;
/** The rating of a run with no answered decision. */
export const INCOMPLETE_RATING = "Incomplete: no successful cases";

/** The fields a summary reads from a decision (a `DecisionRecord` has them all). */
export interface SummaryInput extends BootstrapInput {
  /** Latency of the case's request in ms, null when unknown. */
  latency_ms: number | null;
  /** Input tokens of the case's request (repeated on each of its decisions), null when unknown. */
  input_tokens: number | null;
}

/** The fields a breakdown reads from a decision. */
export interface BreakdownInput extends SummaryInput {
  /** Workflow of the case. */
  workflow: string;
  /** Question name. */
  question: string;
  /** Question type. */
  type: string;
}

/** Options of {@linkcode summarize} and {@linkcode breakdown}. */
export interface SummaryOptions extends BootstrapOptions {}

/** Request latency percentiles in milliseconds. */
export interface LatencySummary {
  /** Median latency. */
  p50: number;
  /** 95th percentile latency. */
  p95: number;
}

/** The summary of a set of scored decisions. Metrics that are n/a are null, never 0. */
export interface Summary {
  /** Number of decisions. */
  decisions: number;
  /** Number of distinct cases. */
  cases: number;
  /** Decisions answered (no error). */
  answered: number;
  /** Decisions that failed (error set); they count as misses. */
  errors: number;
  /**
   * Every registered metric's value keyed by its name (`accuracy`, `kl`, `brier`, `ece`, `nll`,
   * …; see `METRIC_REGISTRY`); null where the metric is n/a.
   */
  metrics: ByMetric<number | null>;
  /** Mean top-label confidence over answered decisions. */
  meanConfidence: number | null;
  /** Seeded bootstrap intervals (resampling cases), keyed like `metrics`. */
  intervals: BootstrapIntervals;
  /**
   * Latency percentiles over answered requests (one value per case: the case's five decisions
   * share one request), or null when none is known.
   */
  latency: LatencySummary | null;
  /**
   * Input tokens summed once per case (each decision repeats its request's count), or null when
   * no case reported any.
   */
  inputTokens: number | null;
  /** Reliability table (non-empty confidence bins). */
  reliability: ReliabilityRow[];
}

/** A breakdown row: the summary of one group. */
export interface BreakdownRow extends Summary {
  /** The group: a type, a workflow, or `workflow/question`. */
  key: string;
}

/** What a breakdown groups by. */
export type BreakdownKey = "type" | "workflow" | "question";

/**
 * Summarizes scored decisions.
 *
 * @param decisions Scored decisions, e.g. the lines of `decisions.jsonl`.
 * @param options Bootstrap resamples, seed and coverage.
 * @returns Counts, metrics (null when n/a), intervals, latency, tokens and reliability table.
 * @throws {RangeError} When the bootstrap options are invalid or a latency is NaN.
 * @example
 * ```ts
 * import { summarize } from "./summary.ts";
 * const base = { confidence: 0.9, kl: 0.1, brier: 0.02, latency_ms: 12, input_tokens: 100 };
 * const s = summarize([
 *   { ...base, case: "a", correct: true, error: null },
 *   { ...base, case: "a", correct: false, error: null },
 * ], { resamples: 100 });
 * if (s.metrics.accuracy !== 0.5 || s.inputTokens !== 100) throw new Error("unexpected summary");
 * ```
 */
export function summarize(
  decisions: readonly SummaryInput[],
  options: SummaryOptions = {},
): Summary {
  let answered = 0;
  const latencyByCase = new Map<string, number>();
  const tokensByCase = new Map<string, number>();
  const cases = new Set<string>();
  for (const d of decisions) {
    cases.add(d.case);
    if (isAnswered(d)) {
      answered++;
      if (d.latency_ms !== null && !latencyByCase.has(d.case)) {
        latencyByCase.set(d.case, d.latency_ms);
      }
    }
    if (d.input_tokens !== null && !tokensByCase.has(d.case)) {
      tokensByCase.set(d.case, d.input_tokens);
    }
  }
  const latencies = [...latencyByCase.values()];
  const p50 = percentile(latencies, 50);
  const p95 = percentile(latencies, 95);
  let inputTokens: number | null = null;
  for (const t of tokensByCase.values()) inputTokens = (inputTokens ?? 0) + t;
  // Unlabelled decisions (gold null) are counted, never scored: the registry's `covers` leaves
  // them out of every metric, and the reliability table and mean confidence follow it.
  const scored = decisions.some((d) => d.gold === null)
    ? decisions.filter((d) => d.gold !== null)
    : decisions;
  return {
    decisions: decisions.length,
    cases: cases.size,
    answered,
    errors: decisions.length - answered,
    metrics: computeMetrics(decisions, options.metrics ?? METRIC_REGISTRY),
    meanConfidence: meanConfidence(scored),
    intervals: bootstrapIntervals(decisions, options),
    latency: p50 === null || p95 === null ? null : { p50, p95 },
    inputTokens,
    reliability: reliabilityTable(scored),
  };
}

/** Options for {@linkcode breakdown}. */
export interface BreakdownOptions extends SummaryOptions {
  /**
   * Rows already computed, by group key, for groups whose decisions are the same (a run's
   * workflow once all its cases are answered); they are used as they are, not computed again.
   */
  known?: ReadonlyMap<string, BreakdownRow> | undefined;
}

/**
 * Summaries per group: by question type, by workflow, or by question (`workflow/question`).
 * Each group's row depends only on that group's decisions (in order) and the options.
 *
 * @param decisions Scored decisions.
 * @param by What to group by.
 * @param options Bootstrap options, used for every group with the same seed, and rows already
 *   computed.
 * @returns One row per group, in the order groups first appear.
 * @throws {RangeError} When `by` is not a known grouping or the bootstrap options are invalid.
 */
export function breakdown(
  decisions: readonly BreakdownInput[],
  by: BreakdownKey,
  options: BreakdownOptions = {},
): BreakdownRow[] {
  const { known, ...summary } = options;
  const groups = new Map<string, BreakdownInput[]>();
  for (const d of decisions) {
    const key = groupKey(d, by);
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  return [...groups].map(([key, group]) =>
    known?.get(key) ?? { key, ...summarize(group, summary) }
  );
}

/**
 * The star rating against the dataset card's reference points: "★" at or below the prior
 * (0.470), "★★" above it, "★★★" at or above teacher self-agreement (0.735); a run with no
 * answered decision is "Incomplete: no successful cases".
 *
 * @param summary A summary (its `answered` count and `accuracy` over all decisions).
 * @returns The rating text.
 * @example
 * ```ts
 * import { rating } from "./summary.ts";
 * rating({ answered: 2000, metrics: { accuracy: 0.735 } }); // "★★★"
 * rating({ answered: 0, metrics: { accuracy: 0 } }); // "Incomplete: no successful cases"
 * ```
 */
export function rating(
  summary: { answered: number; metrics: { accuracy: number | null } },
): string {
  const accuracy = summary.metrics.accuracy ?? null;
  if (summary.answered === 0 || accuracy === null) return INCOMPLETE_RATING;
  if (accuracy >= TEACHER_AGREEMENT) return "★★★";
  if (accuracy > PRIOR_ACCURACY) return "★★";
  return "★";
}

function groupKey(d: BreakdownInput, by: BreakdownKey): string {
  switch (by) {
    case "type":
      return d.type;
    case "workflow":
      return d.workflow;
    case "question":
      return `${d.workflow}/${d.question}`;
    default:
      throw new RangeError(
        `Cannot break down decisions: grouping "${
          String(by)
        }" is not "type", "workflow" or "question"`,
      );
  }
}
