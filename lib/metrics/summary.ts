/**
 * Run summaries: every headline metric with its bootstrap interval, latency, tokens, the
 * reliability table, breakdowns by type / workflow / question, and the star rating.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import { groupBy } from "./_distribution.ts";
import { meanConfidence, percentile, type ReliabilityRow, reliabilityTable } from "./aggregate.ts";
import {
  BootstrapAccumulator,
  type BootstrapInput,
  type BootstrapIntervals,
  bootstrapIntervals,
  type BootstrapOptions,
  type Interval,
} from "./bootstrap.ts";
import {
  type ByMetric,
  computeMetrics,
  METRIC_REGISTRY,
  type MetricDefinition,
} from "./registry.ts";

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
export interface SummaryOptions extends BootstrapOptions {
  /**
   * The metrics whose intervals are bootstrapped; the others' intervals are null (`[]` leaves
   * every interval to the caller: a run's report worker bootstraps them beside the summary).
   *
   * @default {metrics}
   */
  intervalMetrics?: readonly MetricDefinition[] | undefined;
}

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
    intervals: summaryIntervals(decisions, options),
    latency: p50 === null || p95 === null ? null : { p50, p95 },
    inputTokens,
    reliability: reliabilityTable(scored),
  };
}

/**
 * The intervals of every metric, in metric order: those of `intervalMetrics` bootstrapped, null
 * for the rest.
 */
function summaryIntervals(
  decisions: readonly SummaryInput[],
  options: SummaryOptions,
): BootstrapIntervals {
  const { intervalMetrics, ...bootstrap } = options;
  if (intervalMetrics === undefined) return bootstrapIntervals(decisions, bootstrap);
  const metrics = options.metrics ?? METRIC_REGISTRY;
  const wanted = metrics.filter((m) => intervalMetrics.includes(m));
  const some = bootstrapIntervals(decisions, { ...bootstrap, metrics: wanted });
  const out: Record<string, Interval | null> = {};
  for (const m of metrics) out[m.name] = some[m.name] ?? null;
  return out as BootstrapIntervals;
}

/** Options for {@linkcode breakdown}. */
export interface BreakdownOptions extends Omit<SummaryOptions, "accumulated"> {
  /**
   * The groups' bootstraps, fed case by case while a run went on; a group's sums are used when
   * they hold that group's cases (else its intervals are computed here).
   */
  accumulated?: BreakdownAccumulator | undefined;
}

/**
 * Summaries per group: by question type, by workflow, or by question (`workflow/question`).
 * Each group's row depends only on that group's decisions (in order) and the options.
 *
 * @param decisions Scored decisions.
 * @param by What to group by.
 * @param options Bootstrap options, used for every group with the same seed, and the groups'
 *   bootstraps when a run fed them.
 * @returns One row per group, in the order groups first appear.
 * @throws {RangeError} When `by` is not a known grouping or the bootstrap options are invalid.
 */
export function breakdown(
  decisions: readonly BreakdownInput[],
  by: BreakdownKey,
  options: BreakdownOptions = {},
): BreakdownRow[] {
  const { accumulated, ...summary } = options;
  const groups = groupBy(decisions, (d) => groupKey(d, by));
  const sums = accumulated?.by === by ? accumulated : undefined;
  return [...groups].map(([key, group]) => ({
    key,
    ...summarize(group, { ...summary, accumulated: sums?.group(key) }),
  }));
}

/** A case as a run will ask it: what places its decisions in the breakdown groups. */
export interface PlannedCase {
  /** Case id. */
  case: string;
  /** Workflow of the case. */
  workflow: string;
  /** Its questions, in the order of its decisions. */
  questions: readonly { question: string; type: string }[];
}

/**
 * The bootstraps of one breakdown's groups, fed case by case while a run goes on, so that
 * {@linkcode breakdown} only reads the intervals at the end. Which groups a case falls in, and
 * how many cases each group has, come from the run's planned cases; a case whose decisions do
 * not fit the plan leaves its groups unusable, and those are computed at the end as usual.
 *
 * @example
 * ```ts
 * import { BreakdownAccumulator, breakdown } from "./summary.ts";
 * const base = { workflow: "w", type: "noul", confidence: 0.9, kl: 0.1, brier: 0.02 };
 * const decisions = ["a", "b", "c"].map((id, i) => ({
 *   ...base,
 *   case: id,
 *   question: "q",
 *   correct: i > 0,
 *   latency_ms: 5,
 *   input_tokens: 10,
 *   error: null,
 * }));
 * const plan = decisions.map((d) => ({ case: d.case, workflow: "w", questions: [d] }));
 * const sums = new BreakdownAccumulator(plan, "question", { seed: 2 });
 * for (const d of decisions) sums.add([d]);
 * const fed = breakdown(decisions, "question", { seed: 2, accumulated: sums });
 * if (JSON.stringify(fed) !== JSON.stringify(breakdown(decisions, "question", { seed: 2 }))) {
 *   throw new Error("the same rows");
 * }
 * ```
 */
export class BreakdownAccumulator {
  /** What the groups are. */
  readonly by: BreakdownKey;
  readonly #groups = new Map<string, BootstrapAccumulator>();
  readonly #broken = new Set<string>();

  /**
   * Makes the empty bootstraps of every group the planned cases fall in.
   *
   * @param cases The run's cases, in the order their decisions will be in.
   * @param by What to group by.
   * @param options Bootstrap options (the same as the breakdown's).
   * @throws {RangeError} When `by` is not a known grouping or the options are invalid.
   */
  constructor(cases: readonly PlannedCase[], by: BreakdownKey, options: BootstrapOptions = {}) {
    this.by = by;
    const sizes = new Map<string, number>();
    for (const planned of cases) {
      const keys = new Set(
        planned.questions.map((q) => groupKey({ ...q, workflow: planned.workflow }, by)),
      );
      for (const key of keys) sizes.set(key, (sizes.get(key) ?? 0) + 1);
    }
    for (const [key, size] of sizes) {
      this.#groups.set(key, new BootstrapAccumulator(size, options));
    }
  }

  /**
   * Adds the next planned case's decisions to its groups; cases must come in plan order.
   *
   * @param decisions The case's decisions, in order.
   */
  add(decisions: readonly BreakdownInput[]): void {
    for (const [key, list] of groupBy(decisions, (d) => groupKey(d, this.by))) {
      const sums = this.#groups.get(key);
      if (sums === undefined || sums.added >= sums.cases) this.#broken.add(key);
      else sums.add(list);
    }
  }

  /**
   * One group's bootstrap, when it can be used.
   *
   * @param key The group.
   * @returns Its sums, or undefined when the group was not planned or a case did not fit.
   */
  group(key: string): BootstrapAccumulator | undefined {
    return this.#broken.has(key) ? undefined : this.#groups.get(key);
  }
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

function groupKey(
  d: Pick<BreakdownInput, "workflow" | "question" | "type">,
  by: BreakdownKey,
): string {
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
