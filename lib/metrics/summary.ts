/**
 * Run summaries: every headline metric with its bootstrap interval, latency, tokens, the
 * reliability table, breakdowns by type / workflow / question, and the star rating.
 *
 * @module
 */
import { isAnswered, isUnlabelled } from "./_answered.ts";
import { addReliability, BIN_COUNT, reliabilityRows } from "./_bins.ts";
import { cellPercentile, Cells, SKETCH_CELLS } from "./_cells.ts";
import { groupBy } from "./_distribution.ts";
import { poissonWeights } from "./_poisson.ts";
import type { ReliabilityRow } from "./aggregate.ts";
import type { ClassResults } from "./classes.ts";
import {
  BootstrapAccumulator,
  type BootstrapInput,
  type BootstrapIntervals,
  type BootstrapOptions,
  type Interval,
} from "./bootstrap.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import { type ByMetric, METRIC_REGISTRY, type MetricDefinition } from "./registry.ts";

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
  /**
   * Decisions with a gold label: what every metric is over. The others (a user question set's
   * blank labels) are counted in `decisions` and in no metric. Absent in a summary recorded
   * before it was counted: then every decision had gold.
   */
  labelled?: number | undefined;
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
  /**
   * Per-class results by question, overall and per lane (`ClassAccumulator`): a run's summary
   * has them; summaries of groups and from plain arrays do not.
   */
  classes?: ClassResults | undefined;
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
  const { accumulated, ...rest } = options;
  const metrics = options.metrics ?? METRIC_REGISTRY;
  const perCase = [...groupBy(decisions, (d) => d.case).values()];
  const { resamples, seed } = resolveBootstrapOptions(options);
  const wanted = metrics.filter((m) => (options.intervalMetrics ?? metrics).includes(m));
  // Replicates a run already summed for these cases are read, not summed again.
  const fed = accumulated !== undefined &&
    accumulated.holds(perCase, { resamples, seed, metrics: wanted });
  const group = new SummaryAccumulator({ ...rest, intervalMetrics: fed ? [] : wanted });
  for (const list of perCase) group.addCase(list[0]?.case ?? "", list);
  const summary = group.summary();
  if (fed) {
    const intervals = accumulated.intervals(options.level);
    for (const m of wanted) summary.intervals[m.name] = intervals[m.name] ?? null;
  }
  return summary;
}

/** Options of {@linkcode SummaryAccumulator}. */
export interface SummaryAccumulatorOptions extends Omit<SummaryOptions, "accumulated"> {}

/**
 * The summary of one group of decisions (a run, or a breakdown group) fed one case at a time, in
 * any order, in memory that does not grow with the number of cases: the metrics' totals and
 * sketches with their bootstrap replicates ({@linkcode BootstrapAccumulator}), counts, the
 * reliability table's bins, input tokens, and the latencies in a histogram of at most
 * `SKETCH_CELLS` cells (exact percentiles up to that many distinct latencies).
 *
 * @example
 * ```ts
 * import { SummaryAccumulator, summarize } from "./summary.ts";
 * const base = { confidence: 0.9, kl: 0.1, brier: 0.02, latency_ms: 12, input_tokens: 100 };
 * const decisions = ["a", "b"].map((id, i) => ({ ...base, case: id, correct: i === 0, error: null }));
 * const group = new SummaryAccumulator({ seed: 3 });
 * for (const d of decisions.toReversed()) group.addCase(d.case, [d]);
 * const same = JSON.stringify(group.summary()) === JSON.stringify(summarize(decisions, { seed: 3 }));
 * if (!same) throw new Error("the same summary");
 * ```
 */
export class SummaryAccumulator {
  /** The metrics' totals and replicates. */
  readonly bootstrap: BootstrapAccumulator;
  readonly #metrics: readonly MetricDefinition[];
  readonly #level: number;
  readonly #resamples: number;
  readonly #latency = new Cells(SKETCH_CELLS, 0, false);
  readonly #reliability = new Float64Array(3 * BIN_COUNT);
  #decisions = 0;
  #answered = 0;
  #labelled = 0;
  #cases = 0;
  #tokens: number | null = null;
  #confidence = 0;
  #confident = 0;

  /**
   * Makes an empty summary.
   *
   * @param options Metrics, those bootstrapped, replicates, seed and coverage.
   * @throws {RangeError} When the options are invalid.
   */
  constructor(options: SummaryAccumulatorOptions = {}) {
    const { level, resamples } = resolveBootstrapOptions(options);
    this.#metrics = options.metrics ?? METRIC_REGISTRY;
    this.#level = level;
    this.#resamples = resamples;
    this.bootstrap = new BootstrapAccumulator(0, options);
  }

  /** Bytes held (independent of the number of cases). */
  get bytes(): number {
    return this.bootstrap.bytes + this.#latency.bytes + this.#reliability.byteLength;
  }

  /**
   * Adds one case's decisions (each case once, in any order).
   *
   * @param id The case id.
   * @param decisions The case's decisions (in this group).
   * @param weights The case's Poisson weights when the caller drew them with the same seed;
   *   omitted: drawn here.
   * @throws {RangeError} When a latency is NaN.
   */
  addCase(id: string, decisions: readonly SummaryInput[], weights?: Uint8Array | null): void {
    const boot = this.bootstrap;
    const w = weights !== undefined
      ? weights
      : boot.replicated
      ? poissonWeights(boot.seed, id, new Uint8Array(this.#resamples))
      : null;
    boot.addWeighted(id, decisions, boot.replicated ? w : null);
    this.#cases++;
    let latency: number | null = null;
    let tokens: number | null = null;
    for (const d of decisions) {
      this.#decisions++;
      if (isAnswered(d)) {
        this.#answered++;
        if (latency === null && d.latency_ms !== null) latency = d.latency_ms;
      }
      if (tokens === null && d.input_tokens !== null) tokens = d.input_tokens;
      // Unlabelled decisions (gold null) are counted, never scored: the registry's `covers`
      // leaves them out of every metric, and the reliability table and mean confidence follow it.
      if (isUnlabelled(d)) continue;
      this.#labelled++;
      addReliability(this.#reliability, d);
      if (isAnswered(d) && d.confidence !== null && d.confidence !== undefined) {
        this.#confident++;
        this.#confidence += d.confidence;
      }
    }
    if (latency !== null) {
      if (Number.isNaN(latency)) {
        throw new RangeError('Cannot compute a percentile: the values include "NaN"');
      }
      this.#latency.add(latency, 0, null);
    }
    if (tokens !== null) this.#tokens = (this.#tokens ?? 0) + tokens;
  }

  /**
   * Adds another summary's cases (made with the same options).
   *
   * @param other The other summary.
   */
  merge(other: SummaryAccumulator): void {
    this.bootstrap.merge(other.bootstrap);
    this.#latency.merge(other.#latency);
    other.#reliability.forEach((v, i) =>
      this.#reliability[i] = (this.#reliability[i] as number) + v
    );
    this.#decisions += other.#decisions;
    this.#answered += other.#answered;
    this.#labelled += other.#labelled;
    this.#cases += other.#cases;
    if (other.#tokens !== null) this.#tokens = (this.#tokens ?? 0) + other.#tokens;
    this.#confidence += other.#confidence;
    this.#confident += other.#confident;
  }

  /**
   * The summary of the cases added.
   *
   * @returns Counts, metrics (null when n/a), intervals, latency, tokens and reliability table.
   */
  summary(): Summary {
    const values = this.bootstrap.values();
    const intervals = this.bootstrap.intervals(this.#level);
    const metrics: Record<string, number | null> = {};
    const bounds: Record<string, Interval | null> = {};
    for (const m of this.#metrics) {
      metrics[m.name] = values[m.name] ?? null;
      bounds[m.name] = intervals[m.name] ?? null;
    }
    const p50 = cellPercentile(this.#latency, 50);
    const p95 = cellPercentile(this.#latency, 95);
    return {
      decisions: this.#decisions,
      cases: this.#cases,
      answered: this.#answered,
      labelled: this.#labelled,
      errors: this.#decisions - this.#answered,
      metrics: metrics as ByMetric<number | null>,
      meanConfidence: this.#confident === 0 ? null : this.#confidence / this.#confident,
      intervals: bounds as BootstrapIntervals,
      latency: p50 === null || p95 === null ? null : { p50, p95 },
      inputTokens: this.#tokens,
      reliability: reliabilityRows(this.#reliability),
    };
  }
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
 * The summaries of one breakdown's groups, fed case by case while a run goes on, in any order, so
 * that {@linkcode breakdown} only reads the intervals at the end. Groups are made as their first
 * decision comes (the planned cases' groups first, in plan order), so memory grows with the number
 * of groups, never with the number of cases.
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
 * for (const d of decisions.toReversed()) sums.add([d]);
 * const fed = breakdown(decisions, "question", { seed: 2, accumulated: sums });
 * if (JSON.stringify(fed) !== JSON.stringify(breakdown(decisions, "question", { seed: 2 }))) {
 *   throw new Error("the same rows");
 * }
 * ```
 */
export class BreakdownAccumulator {
  /** What the groups are. */
  readonly by: BreakdownKey;
  readonly #options: Omit<SummaryOptions, "accumulated">;
  readonly #groups = new Map<string, SummaryAccumulator>();

  /**
   * Makes the empty summaries of every group the planned cases fall in.
   *
   * @param cases The run's planned cases (their groups come first, in this order); more groups
   *   are made as decisions of other groups come.
   * @param by What to group by.
   * @param options Metrics, those bootstrapped, replicates and seed (the breakdown's).
   * @throws {RangeError} When `by` is not a known grouping or the options are invalid.
   */
  constructor(
    cases: readonly PlannedCase[],
    by: BreakdownKey,
    options: Omit<SummaryOptions, "accumulated"> = {},
  ) {
    this.by = by;
    this.#options = options;
    for (const planned of cases) {
      for (const q of planned.questions) {
        this.#group(groupKey({ ...q, workflow: planned.workflow }, by));
      }
    }
    if (cases.length === 0) groupKey({ workflow: "", question: "", type: "" }, by);
  }

  /** Bytes held by the groups (independent of the number of cases). */
  get bytes(): number {
    let bytes = 0;
    for (const g of this.#groups.values()) bytes += g.bytes;
    return bytes;
  }

  /**
   * Adds a case's decisions to its groups (each case once, in any order).
   *
   * @param decisions The case's decisions; they share one `case` id.
   * @param weights The case's Poisson weights, when the caller drew them with the same seed.
   */
  add(decisions: readonly BreakdownInput[], weights?: Uint8Array | null): void {
    const id = decisions[0]?.case ?? "";
    let w = weights;
    for (const [key, list] of groupBy(decisions, (d) => groupKey(d, this.by))) {
      const group = this.#group(key);
      // The case's weights are drawn once for all its groups (the same seed).
      if (w === undefined && group.bootstrap.replicated) {
        w = poissonWeights(group.bootstrap.seed, id, new Uint8Array(group.bootstrap.resamples));
      }
      group.addCase(id, list, w);
    }
  }

  /**
   * Adds another breakdown's cases (made with the same options).
   *
   * @param other The other breakdown.
   */
  merge(other: BreakdownAccumulator): void {
    for (const [key, group] of other.#groups) this.#group(key).merge(group);
  }

  /**
   * One group's bootstrap.
   *
   * @param key The group.
   * @returns Its replicates, or undefined when no decision of it came and it was not planned.
   */
  group(key: string): BootstrapAccumulator | undefined {
    return this.#groups.get(key)?.bootstrap;
  }

  /**
   * The rows of the groups that have decisions, in group order.
   *
   * @returns One row per group.
   */
  rows(): BreakdownRow[] {
    const rows: BreakdownRow[] = [];
    for (const [key, group] of this.#groups) {
      const summary = group.summary();
      if (summary.decisions > 0) rows.push({ key, ...summary });
    }
    return rows;
  }

  #group(key: string): SummaryAccumulator {
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, group = new SummaryAccumulator(this.#options));
    return group;
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
