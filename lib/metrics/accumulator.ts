/**
 * One accumulator for a whole run's metrics: the summary (every registered metric with its Poisson
 * bootstrap interval) and the breakdowns by question type, workflow (lane) and question, fed one
 * case at a time in any order, in memory that depends on the number of groups, metrics and
 * replicates, never on the number of decisions. `summarize`, `breakdown` and `bootstrapIntervals`
 * compute the same things from plain arrays through the same parts.
 *
 * Memory, in bytes, with B replicates, C = `SKETCH_CELLS` = 2,048 histogram cells, Q questions,
 * W additive totals (87 for the whole registry, 38 for the column metrics) of which W_b are
 * bootstrapped (all 87 in the summary, accuracy's 2 in a breakdown group):
 * - totals 8·W, replicate sums 8·W_b·B;
 * - tie runs of confidences (equal-mass and debiased ECE, AURC, accuracy at coverage): 48·C, and
 *   16·B·C bootstrapped;
 * - yes/no forecasts (Murphy): 48·C + 24, and 8·B·C + 24·B bootstrapped;
 * - per-question bins (per-question ECE): Q·(240 + 160·B) bootstrapped;
 * - latencies 48·C, the reliability bins 240, a case's weights B;
 * - with `classes`, the per-class results (`classes.ts`): per question and lane, the confusion
 *   counts and, for a yes/no question, 8,000 + 800·B bytes of P(yes) histograms.
 * With B = 1,000 the summary with every metric bootstrapped holds at most
 * 0.7 + 32.9 + 16.5 + 0.16·Q + 0.1 MB (55 MB with Q = 30), and a breakdown group (the column
 * metrics, accuracy bootstrapped) about 0.12 MB; a run with 3 question types, 10 lanes and 30
 * questions holds at most about 60 MB (57 MB measured once every histogram is full), however many
 * decisions it has.
 *
 * @example
 * ```ts
 * import { MetricsAccumulator } from "./accumulator.ts";
 * const acc = new MetricsAccumulator({ seed: 7, resamples: 200 });
 * for (const id of ["c2", "c1"]) {
 *   acc.addCase(id, [{
 *     case: id,
 *     workflow: "w",
 *     question: "q",
 *     type: "noul",
 *     correct: id === "c1",
 *     confidence: 0.8,
 *     kl: 0.2,
 *     brier: 0.1,
 *     error: null,
 *     latency_ms: 10,
 *     input_tokens: 50,
 *   }]);
 * }
 * const summary = acc.summary();
 * if (summary.metrics.accuracy !== 0.5 || acc.breakdown("question").length !== 1) {
 *   throw new Error("two cases, one question");
 * }
 * ```
 *
 * @module
 */
import { poissonWeights } from "./_poisson.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import type { BootstrapOptions } from "./bootstrap.ts";
import { ClassAccumulator, type ClassQuestion } from "./classes.ts";
import {
  BREAKDOWN_INTERVAL_METRICS,
  COLUMN_METRICS,
  METRIC_REGISTRY,
  type MetricDefinition,
} from "./registry.ts";
import {
  BreakdownAccumulator,
  type BreakdownInput,
  type BreakdownKey,
  type BreakdownRow,
  type PlannedCase,
  type Summary,
  SummaryAccumulator,
} from "./summary.ts";

/** Options of {@linkcode MetricsAccumulator}. */
export interface MetricsAccumulatorOptions extends Omit<BootstrapOptions, "accumulated"> {
  /**
   * The summary's metrics whose intervals are bootstrapped (`[]`: none).
   *
   * @default {metrics}
   */
  intervalMetrics?: readonly MetricDefinition[] | undefined;
  /**
   * The breakdowns kept.
   *
   * @default {["type", "workflow", "question"]}
   */
  breakdowns?: readonly BreakdownKey[] | undefined;
  /**
   * The metrics of each breakdown group (the reports' breakdown tables show the column metrics).
   *
   * @default {COLUMN_METRICS}
   */
  breakdownMetrics?: readonly MetricDefinition[] | undefined;
  /**
   * The breakdown groups' metrics whose intervals are bootstrapped.
   *
   * @default {BREAKDOWN_INTERVAL_METRICS}
   */
  breakdownIntervalMetrics?: readonly MetricDefinition[] | undefined;
  /**
   * The run's planned cases: their groups come first in each breakdown, in plan order, whatever
   * order the answers come in.
   *
   * @default {[]}
   */
  planned?: readonly PlannedCase[] | undefined;
  /**
   * Also keep the per-class results (`ClassAccumulator`, sharing the case weights): the summary
   * then has `classes`.
   *
   * @default false
   */
  classes?: boolean | undefined;
}

/**
 * A run's metrics, intervals and breakdowns, fed case by case: see the module doc for what it
 * holds and its memory.
 */
export class MetricsAccumulator {
  readonly #seed: number;
  readonly #overall: SummaryAccumulator;
  readonly #breakdowns = new Map<BreakdownKey, BreakdownAccumulator>();
  readonly #weights: Uint8Array;
  readonly #classes: ClassAccumulator | null;

  /**
   * Makes an empty accumulator.
   *
   * @param options Seed, replicates, coverage, the metrics and the breakdowns.
   * @throws {RangeError} When the options are invalid or a breakdown is not a known grouping.
   */
  constructor(options: MetricsAccumulatorOptions = {}) {
    const { resamples, seed, level } = resolveBootstrapOptions(options);
    this.#seed = seed;
    const metrics = options.metrics ?? METRIC_REGISTRY;
    this.#overall = new SummaryAccumulator({
      resamples,
      seed,
      level,
      metrics,
      intervalMetrics: options.intervalMetrics ?? metrics,
    });
    for (const by of options.breakdowns ?? ["type", "workflow", "question"] as const) {
      this.#breakdowns.set(
        by,
        new BreakdownAccumulator(options.planned ?? [], by, {
          resamples,
          seed,
          level,
          metrics: options.breakdownMetrics ?? COLUMN_METRICS,
          intervalMetrics: options.breakdownIntervalMetrics ?? BREAKDOWN_INTERVAL_METRICS,
        }),
      );
    }
    this.#weights = new Uint8Array(resamples);
    this.#classes = options.classes ? new ClassAccumulator({ resamples, seed, level }) : null;
  }

  /** Bytes of accumulator state held (independent of the number of cases). */
  get bytes(): number {
    let bytes = this.#overall.bytes + this.#weights.byteLength + (this.#classes?.bytes ?? 0);
    for (const b of this.#breakdowns.values()) bytes += b.bytes;
    return bytes;
  }

  /**
   * Adds one case: all its decisions, each case once, cases in any order. The case's Poisson
   * weights are drawn once, from the seed and its id, and shared by every group it falls in.
   *
   * @param id The case id.
   * @param decisions The case's decisions.
   * @param questions The case's question definitions by name (the per-class results keep a score
   *   question's levels' text).
   * @throws {RangeError} When a latency is NaN.
   */
  addCase(
    id: string,
    decisions: readonly BreakdownInput[],
    questions?: Readonly<Record<string, ClassQuestion>>,
  ): void {
    const weights = this.#weights.length > 0 ? poissonWeights(this.#seed, id, this.#weights) : null;
    this.#overall.addCase(id, decisions, weights);
    for (const b of this.#breakdowns.values()) b.add(decisions, weights);
    this.#classes?.addCase(id, decisions, { questions, weights });
  }

  /**
   * Adds another accumulator's cases (made with the same options and no case in common): the
   * result is the accumulator of both sets of cases, as when parallel workers each fed some.
   *
   * @param other The other accumulator.
   */
  merge(other: MetricsAccumulator): void {
    this.#overall.merge(other.#overall);
    if (this.#classes !== null && other.#classes !== null) this.#classes.merge(other.#classes);
    for (const [by, b] of this.#breakdowns) {
      const theirs = other.#breakdowns.get(by);
      if (theirs !== undefined) b.merge(theirs);
    }
  }

  /**
   * A bootstrapped metric's value in each replicate (NaN where n/a). Two accumulators with the
   * same seed weigh a case alike in replicate r, so their replicates pair up.
   *
   * @param metric A metric given in `intervalMetrics`.
   * @returns One value per replicate.
   * @throws {RangeError} When the metric is not bootstrapped.
   */
  replicates(metric: MetricDefinition): Float64Array {
    return this.#overall.bootstrap.replicates(metric);
  }

  /**
   * The run's summary: every metric with its interval.
   *
   * @returns The summary of the cases added.
   */
  summary(): Summary {
    const summary = this.#overall.summary();
    return this.#classes === null ? summary : { ...summary, classes: this.#classes.results() };
  }

  /**
   * One breakdown's rows.
   *
   * @param by The grouping.
   * @returns One row per group with decisions (planned groups first, then in order of arrival).
   * @throws {RangeError} When the breakdown is not kept.
   */
  breakdown(by: BreakdownKey): BreakdownRow[] {
    const b = this.#breakdowns.get(by);
    if (b === undefined) {
      throw new RangeError(
        `Cannot read breakdown "${by}": the accumulator keeps ${
          [...this.#breakdowns.keys()].join(", ") || "none"
        }`,
      );
    }
    return b.rows();
  }

  /**
   * The three breakdowns a report shows.
   *
   * @returns Rows by question type, by workflow and by question.
   * @throws {RangeError} When one of them is not kept.
   */
  breakdowns(): { byType: BreakdownRow[]; byWorkflow: BreakdownRow[]; byQuestion: BreakdownRow[] } {
    return {
      byType: this.breakdown("type"),
      byWorkflow: this.breakdown("workflow"),
      byQuestion: this.breakdown("question"),
    };
  }
}
