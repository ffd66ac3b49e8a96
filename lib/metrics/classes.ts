/**
 * Per-class results of every question: the confusion matrix (rows gold, columns predicted, then
 * one `error` column), precision, recall, F1 and support per class, macro-F1, the majority-class
 * baseline's accuracy, and for yes/no (`noul`) questions AUROC and AUPRC with Poisson bootstrap
 * intervals — overall and per lane (the decision's `workflow`), fed case by case in bounded
 * memory by {@linkcode ClassAccumulator}, or computed from plain arrays by
 * {@linkcode classResults}.
 *
 * Definitions (docs/metrics.md, "Per-class results"):
 * - Only labelled decisions count (`gold` not null). The predicted class is the recorded
 *   `answer`: the argmax of the answered distribution, the option listed first winning a tie
 *   (`argmax`, the rule accuracy is scored with). A decision with no answer (an error) is counted
 *   in the `error` column of its gold row.
 * - precision = TP / answered predictions of the class (null when never predicted); recall = TP /
 *   support, support being every labelled decision with that gold class, errored ones included
 *   (null when 0); F1 = 2·TP / (2·TP + FP + FN), the harmonic mean of the two, 0 when a class
 *   occurs but is never right, null when it occurs neither as gold nor as a prediction.
 * - macro-F1: the mean F1 over the classes that occur (F1 not null); the majority baseline: the
 *   largest support over all labelled decisions (the accuracy of always answering the most
 *   frequent gold class).
 * - AUROC and AUPRC (yes/no questions, positive class `true`, over answered labelled decisions)
 *   read a histogram of P(yes) in {@linkcode AUROC_BINS} = 1,000 equal bins per gold class: AUROC
 *   is P(score of a positive > score of a negative) with pairs in one bin counting ½ (exact when
 *   no two distinct scores of different classes share a bin of width 0.001); AUPRC is the average
 *   precision, Σ over the bins from the top of (positives in the bin / positives) × precision at
 *   that bin's threshold (a bin one threshold, as tied scores are).
 * - Their intervals: the Poisson bootstrap of the run (a case's weight in replicate b from the
 *   hash of seed, case id and b, as every other interval), each replicate's histogram kept on
 *   {@linkcode AUROC_INTERVAL_BINS} = 100 bins (P(yes) to 0.01) so that a group holds 800 KB at
 *   B = 1,000. The percentile interval of the replicates is shifted by the difference between the
 *   1,000-bin and the 100-bin estimate of the whole sample, so the coarser grid's tie bias does
 *   not move the interval away from the estimate (clamped to [0, 1]); scores closer than 0.01 to
 *   one another across the classes make the interval too narrow.
 *
 * Memory per (question, lane) group: the confusion counts ((K + 1)·K numbers for K options) and,
 * for a yes/no question, 2 × 1,000 fine counts plus 2 × 100 × B replicate counts (4 bytes each):
 * 0.8 MB at B = 1,000, whatever the number of decisions. The overall result of a question is the
 * sum of its lanes' counts, made when read.
 *
 * @example
 * ```ts
 * import { classResults } from "./classes.ts";
 * const results = classResults([
 *   { case: "a", workflow: "w", question: "q", type: "choice", answer: "x", gold: "x",
 *     predicted: { x: 0.9, y: 0.1 }, error: null },
 *   { case: "b", workflow: "w", question: "q", type: "choice", answer: "x", gold: "y",
 *     predicted: { x: 0.6, y: 0.4 }, error: null },
 * ], { resamples: 0 });
 * const q = results.q!;
 * if (q.confusion[1]![0] !== 1 || q.majorityBaseline !== 0.5) throw new Error("gold y, said x");
 * ```
 *
 * @module
 */
import { poissonWeights } from "./_poisson.ts";
import { percentileInterval } from "./_quantile.ts";
import { resolveBootstrapOptions } from "./_resample.ts";
import type { BootstrapOptions, Interval } from "./bootstrap.ts";

/** Bins of P(yes) the AUROC and AUPRC estimates read (width 0.001). */
export const AUROC_BINS = 1000;

/** Bins of P(yes) each bootstrap replicate keeps for the intervals (width 0.01). */
export const AUROC_INTERVAL_BINS = 100;

/** The confusion matrix's last column: labelled decisions that got no answer. */
export const ERROR_COLUMN = "error";

const FOLD = AUROC_BINS / AUROC_INTERVAL_BINS;

/**
 * The fields a per-class result reads from a decision (a `DecisionRecord` has them all; one
 * without a gold label or a question is left out).
 */
export interface ClassInput {
  /** Case id: the unit the bootstrap weighs. */
  case?: string | undefined;
  /** The lane (a user set's lane, or Typed Decisions' workflow). */
  workflow?: string | undefined;
  /** Question name, the results' key. */
  question?: string | undefined;
  /** Question type. */
  type?: string | undefined;
  /** The predicted answer (argmax of the answered distribution), null on error. */
  answer?: string | null | undefined;
  /** The gold label; null for an unlabelled decision (left out). */
  gold?: string | null | undefined;
  /** The predicted distribution keyed in option order, null on error. */
  predicted?: Readonly<Record<string, number>> | null | undefined;
  /** The gold distribution keyed in option order (its keys give the options of an errored one). */
  gold_probabilities?: Readonly<Record<string, number>> | null | undefined;
  /** The failure, or null when answered. */
  error?: unknown;
}

/** One class's row of a per-class table. */
export interface ClassRow {
  /** The class (an option name, a score level's index, `true`/`false`). */
  label: string;
  /** Right predictions of the class over answered predictions of it; null when never predicted. */
  precision: number | null;
  /** Right predictions of the class over its support; null when the support is 0. */
  recall: number | null;
  /** 2·TP / (2·TP + FP + FN); null when the class occurs neither as gold nor as a prediction. */
  f1: number | null;
  /** Labelled decisions whose gold is the class (errored ones included). */
  support: number;
}

/** AUROC and AUPRC intervals, shaped as the summary's other intervals. */
export interface ClassIntervals {
  /** AUROC's bootstrap interval, null when it is n/a in every replicate. */
  auroc: Interval | null;
  /** AUPRC's bootstrap interval, null when it is n/a in every replicate. */
  auprc: Interval | null;
}

/** The per-class results of one question in one group (overall, or one lane). */
export interface ClassTable {
  /** The classes, in option order (score levels by index). */
  labels: string[];
  /** The confusion matrix's columns: `labels`, then `error`. */
  columns: string[];
  /** Counts: one row per gold class (`labels`), one column per entry of `columns`. */
  confusion: number[][];
  /** Precision, recall, F1 and support per class, in `labels` order. */
  perClass: ClassRow[];
  /** Labelled decisions (the confusion matrix's total). */
  n: number;
  /** Mean F1 over the classes that occur; null when none does. */
  macroF1: number | null;
  /** The accuracy of always answering the most frequent gold class; null when n is 0. */
  majorityBaseline: number | null;
  /** Yes/no questions: AUROC of P(yes) against gold `true`, null when one class is missing. */
  auroc?: number | null | undefined;
  /** Yes/no questions: average precision of P(yes) for gold `true`, null when n/a. */
  auprc?: number | null | undefined;
  /** Yes/no questions: the bootstrap intervals of `auroc` and `auprc`. */
  intervals?: ClassIntervals | undefined;
}

/** A question's per-class results: overall, with the same per lane. */
export interface QuestionClasses extends ClassTable {
  /** The question type. */
  type: string;
  /** Score questions: each level's text from the question's criteria, in `labels` order. */
  levels?: string[] | undefined;
  /** The same results per lane, keyed by lane, in order of first decision. */
  lanes: Record<string, ClassTable>;
}

/** Per-class results keyed by question name, as `run.json`'s `summary.classes` holds them. */
export type ClassResults = Record<string, QuestionClasses>;

/** A question's definition, as far as the results read it (its score levels' text). */
export interface ClassQuestion {
  /** Question type. */
  type: string;
  /** Option descriptions by name, or a score question's levels' text in order (an array). */
  criteria?: unknown;
}

/** Options of {@linkcode ClassAccumulator.addCase}. */
export interface AddClassCaseOptions {
  /**
   * The case's question definitions by name (a score question's levels' text is kept).
   *
   * @default undefined (no level text)
   */
  questions?: Readonly<Record<string, ClassQuestion>> | undefined;
  /**
   * The case's Poisson weight per replicate, when the caller has drawn them already (the same
   * seed, case id and number of replicates); drawn here otherwise.
   *
   * @default undefined (drawn when needed)
   */
  weights?: Uint8Array | null | undefined;
}

/** Options of {@linkcode ClassAccumulator} and {@linkcode classResults}. */
export interface ClassOptions extends Pick<BootstrapOptions, "resamples" | "seed" | "level"> {}

/** The counts of one question in one lane. */
class ClassGroup {
  readonly labels: string[] = [];
  /** A score question's levels' text, from the first case that had them. */
  levels: string[] | undefined;
  /** Counts by `gold\0predicted` (predicted `error` for an errored decision). */
  readonly counts = new Map<string, number>();
  /** P(yes) histograms by gold class (yes/no questions). */
  pos: Uint32Array | null = null;
  neg: Uint32Array | null = null;
  /** Replicate histograms, replicate-major: [r·100 + bin]. */
  posBoot: Uint32Array | null = null;
  negBoot: Uint32Array | null = null;

  constructor(readonly type: string, readonly resamples: number) {
    if (type === "noul") {
      this.pos = new Uint32Array(AUROC_BINS);
      this.neg = new Uint32Array(AUROC_BINS);
      if (resamples > 0) {
        this.posBoot = new Uint32Array(AUROC_INTERVAL_BINS * resamples);
        this.negBoot = new Uint32Array(AUROC_INTERVAL_BINS * resamples);
      }
    }
  }

  get bytes(): number {
    return (this.pos?.byteLength ?? 0) * 2 + (this.posBoot?.byteLength ?? 0) * 2 +
      this.counts.size * 16 + this.labels.length * 16;
  }

  label(name: string): void {
    if (!this.labels.includes(name)) this.labels.push(name);
  }

  add(d: ClassInput, weights: Uint8Array | null): void {
    const gold = d.gold as string;
    for (const key of Object.keys(d.predicted ?? d.gold_probabilities ?? {})) this.label(key);
    this.label(gold);
    const answered = typeof d.answer === "string" && (d.error === null || d.error === undefined);
    if (answered) this.label(d.answer as string);
    const key = `${gold}\u0000${answered ? d.answer : ERROR_COLUMN}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    const p = answered ? d.predicted?.["true"] : undefined;
    if (this.pos === null || typeof p !== "number" || !(p >= 0 && p <= 1)) return;
    if (gold !== "true" && gold !== "false") return;
    const bin = Math.min(AUROC_BINS - 1, Math.floor(p * AUROC_BINS));
    const fine = gold === "true" ? this.pos : this.neg as Uint32Array;
    fine[bin] = (fine[bin] as number) + 1;
    const boot = gold === "true" ? this.posBoot : this.negBoot;
    if (boot === null || weights === null) return;
    const coarse = Math.floor(bin / FOLD);
    for (let r = 0; r < weights.length; r++) {
      const w = weights[r] as number;
      if (w === 0) continue;
      const at = r * AUROC_INTERVAL_BINS + coarse;
      boot[at] = (boot[at] as number) + w;
    }
  }

  /** Adds another group's counts (same question type and replicates) into this one. */
  merge(other: ClassGroup): void {
    for (const l of other.labels) this.label(l);
    for (const [k, v] of other.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + v);
    const sum = (into: Uint32Array | null, from: Uint32Array | null) => {
      if (into === null || from === null) return;
      for (let i = 0; i < into.length; i++) into[i] = (into[i] as number) + (from[i] as number);
    };
    sum(this.pos, other.pos);
    sum(this.neg, other.neg);
    sum(this.posBoot, other.posBoot);
    sum(this.negBoot, other.negBoot);
  }

  table(level: number): ClassTable {
    const labels = [...this.labels];
    const columns = [...labels, ERROR_COLUMN];
    const confusion = labels.map((g) => columns.map((p) => this.counts.get(`${g}\u0000${p}`) ?? 0));
    const out: ClassTable = { labels, columns, confusion, ...tableFigures(labels, confusion) };
    if (this.pos !== null && this.neg !== null) {
      const auroc = aurocOfHistogram(this.pos, this.neg);
      const auprc = auprcOfHistogram(this.pos, this.neg);
      out.auroc = auroc;
      out.auprc = auprc;
      out.intervals = this.#intervals(level, auroc, auprc);
    }
    return out;
  }

  #intervals(level: number, auroc: number | null, auprc: number | null): ClassIntervals {
    const b = this.resamples;
    if (this.posBoot === null || this.negBoot === null || b === 0) {
      return { auroc: null, auprc: null };
    }
    const coarsePos = fold(this.pos as Uint32Array);
    const coarseNeg = fold(this.neg as Uint32Array);
    const shiftRoc = auroc === null ? 0 : auroc - (aurocOfHistogram(coarsePos, coarseNeg) ?? 0);
    const shiftPr = auprc === null ? 0 : auprc - (auprcOfHistogram(coarsePos, coarseNeg) ?? 0);
    const rocs = new Float64Array(b);
    const prs = new Float64Array(b);
    let nRoc = 0;
    let nPr = 0;
    for (let r = 0; r < b; r++) {
      const from = r * AUROC_INTERVAL_BINS;
      const pos = this.posBoot.subarray(from, from + AUROC_INTERVAL_BINS);
      const neg = this.negBoot.subarray(from, from + AUROC_INTERVAL_BINS);
      const roc = aurocOfHistogram(pos, neg);
      if (roc !== null) rocs[nRoc++] = roc;
      const pr = auprcOfHistogram(pos, neg);
      if (pr !== null) prs[nPr++] = pr;
    }
    const shifted = (i: Interval | null, by: number): Interval | null =>
      i === null ? null : [clamp01(i[0] + by), clamp01(i[1] + by)];
    return {
      auroc: shifted(percentileInterval(rocs, nRoc, level), shiftRoc),
      auprc: shifted(percentileInterval(prs, nPr, level), shiftPr),
    };
  }
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** The 1,000-bin histogram folded onto the replicates' 100 bins. */
function fold(fine: Uint32Array): Uint32Array {
  const out = new Uint32Array(AUROC_INTERVAL_BINS);
  for (let i = 0; i < fine.length; i++) {
    const c = Math.floor(i / FOLD);
    out[c] = (out[c] as number) + (fine[i] as number);
  }
  return out;
}

/** Precision, recall, F1, support, macro-F1 and the majority baseline of a confusion matrix. */
function tableFigures(
  labels: readonly string[],
  confusion: readonly (readonly number[])[],
): Pick<ClassTable, "perClass" | "n" | "macroF1" | "majorityBaseline"> {
  const k = labels.length;
  let n = 0;
  let most = 0;
  const perClass: ClassRow[] = labels.map((label, i) => {
    const row = confusion[i] as readonly number[];
    const support = row.reduce((a, b) => a + b, 0);
    n += support;
    most = Math.max(most, support);
    const tp = row[i] as number;
    let predicted = 0;
    for (let g = 0; g < k; g++) predicted += (confusion[g] as readonly number[])[i] as number;
    const fp = predicted - tp;
    const fn = support - tp;
    const denominator = 2 * tp + fp + fn;
    return {
      label,
      precision: predicted === 0 ? null : tp / predicted,
      recall: support === 0 ? null : tp / support,
      f1: denominator === 0 ? null : (2 * tp) / denominator,
      support,
    };
  });
  const f1s = perClass.map((r) => r.f1).filter((f): f is number => f !== null);
  return {
    perClass,
    n,
    macroF1: f1s.length === 0 ? null : f1s.reduce((a, b) => a + b, 0) / f1s.length,
    majorityBaseline: n === 0 ? null : most / n,
  };
}

/**
 * AUROC from histograms of the score per class, bins ascending: the probability that a positive
 * scores above a negative, a pair in one bin counting ½.
 *
 * @param pos Positives per bin.
 * @param neg Negatives per bin (same bins).
 * @returns The AUROC, or null when either class is empty.
 */
export function aurocOfHistogram(pos: ArrayLike<number>, neg: ArrayLike<number>): number | null {
  let positives = 0;
  let negatives = 0;
  for (let i = 0; i < pos.length; i++) positives += pos[i] as number;
  let above = positives; // positives in bins ≥ i
  let pairs = 0;
  for (let i = 0; i < neg.length; i++) {
    const p = pos[i] as number;
    const n = neg[i] as number;
    above -= p;
    negatives += n;
    if (n !== 0) pairs += n * (above + p / 2);
  }
  if (positives === 0 || negatives === 0) return null;
  return pairs / (positives * negatives);
}

/**
 * Average precision from histograms of the score per class, bins ascending: from the top bin
 * down, each bin a threshold, Σ (positives in the bin / positives) × precision at it.
 *
 * @param pos Positives per bin.
 * @param neg Negatives per bin (same bins).
 * @returns The average precision, or null when there is no positive.
 */
export function auprcOfHistogram(pos: ArrayLike<number>, neg: ArrayLike<number>): number | null {
  let positives = 0;
  for (let i = 0; i < pos.length; i++) positives += pos[i] as number;
  if (positives === 0) return null;
  let tp = 0;
  let fp = 0;
  let ap = 0;
  for (let i = pos.length - 1; i >= 0; i--) {
    const p = pos[i] as number;
    tp += p;
    fp += neg[i] as number;
    if (p !== 0) ap += (p / positives) * (tp / (tp + fp));
  }
  return ap;
}

/**
 * A run's per-class results fed one case at a time, in any order (the counts are sums; the
 * bootstrap's case weights depend only on seed, case id and replicate), in memory bounded by the
 * questions, lanes, options and replicates (see the module doc), never by the decisions.
 */
export class ClassAccumulator {
  readonly #seed: number;
  readonly #resamples: number;
  readonly #level: number;
  readonly #questions = new Map<string, { type: string }>();
  readonly #groups = new Map<string, Map<string, ClassGroup>>();
  /** Lanes in order of first decision, labelled or not: every question lists them so. */
  readonly #lanes = new Map<string, number>();
  readonly #weights: Uint8Array;

  /**
   * An empty accumulator.
   *
   * @param options Seed, replicates and coverage of the intervals.
   * @throws {RangeError} When the options are invalid.
   */
  constructor(options: ClassOptions = {}) {
    const { resamples, seed, level } = resolveBootstrapOptions(options);
    this.#seed = seed;
    this.#resamples = resamples;
    this.#level = level;
    this.#weights = new Uint8Array(resamples);
  }

  /** Bytes of state held (independent of the number of decisions). */
  get bytes(): number {
    let bytes = this.#weights.byteLength;
    for (const lanes of this.#groups.values()) {
      for (const g of lanes.values()) bytes += g.bytes;
    }
    return bytes;
  }

  /**
   * Adds one case: its decisions (each case once). Unlabelled decisions are left out.
   *
   * @param id The case id.
   * @param decisions The case's decisions.
   * @param options The case's question definitions, and its weights when the caller has them.
   */
  addCase(
    id: string,
    decisions: readonly ClassInput[],
    options: AddClassCaseOptions = {},
  ): void {
    const questions = options.questions;
    let weights: Uint8Array | null = options.weights ?? null;
    for (const d of decisions) {
      const name = d.question;
      if (!this.#lanes.has(d.workflow ?? "")) this.#lanes.set(d.workflow ?? "", this.#lanes.size);
      if (typeof d.gold !== "string" || typeof name !== "string") continue;
      let question = this.#questions.get(name);
      if (question === undefined) {
        question = { type: d.type ?? "" };
        this.#questions.set(name, question);
        this.#groups.set(name, new Map());
      }
      const lanes = this.#groups.get(name) as Map<string, ClassGroup>;
      const lane = d.workflow ?? "";
      let group = lanes.get(lane);
      if (group === undefined) {
        group = new ClassGroup(question.type, this.#resamples);
        lanes.set(lane, group);
      }
      if (group.levels === undefined && d.type === "score") {
        const criteria = questions?.[name]?.criteria;
        if (Array.isArray(criteria)) group.levels = criteria.map(String);
      }
      if (weights === null && group.posBoot !== null && this.#resamples > 0) {
        weights = poissonWeights(this.#seed, id, this.#weights);
      }
      group.add(d, weights);
    }
  }

  /**
   * Adds another accumulator's cases (same options, no case in common).
   *
   * @param other The other accumulator.
   */
  merge(other: ClassAccumulator): void {
    for (const lane of other.#lanes.keys()) {
      if (!this.#lanes.has(lane)) this.#lanes.set(lane, this.#lanes.size);
    }
    for (const [name, q] of other.#questions) {
      const mine = this.#questions.get(name);
      if (mine === undefined) this.#questions.set(name, { ...q });
      let lanes = this.#groups.get(name);
      if (lanes === undefined) this.#groups.set(name, lanes = new Map());
      for (const [lane, g] of other.#groups.get(name) ?? []) {
        let into = lanes.get(lane);
        if (into === undefined) {
          into = new ClassGroup(g.type, this.#resamples);
          lanes.set(lane, into);
        }
        into.merge(g);
        into.levels ??= g.levels;
      }
    }
  }

  /**
   * The results of the cases added.
   *
   * @returns Per question (in order of first labelled decision): overall, then per lane (lanes in
   *   order of first decision, the same for every question); a name
   *   whose options differ by lane gives one entry per lane, keyed `<lane>/<question>`.
   */
  results(): ClassResults {
    const out: ClassResults = {};
    for (const [name, q] of this.#questions) {
      const lanes = this.#groups.get(name) as Map<string, ClassGroup>;
      const sets = new Set([...lanes.values()].map((g) => [...g.labels].sort().join("\u0000")));
      if (sets.size > 1) {
        // One name, different options by lane (Typed Decisions' `action`): different questions.
        for (const [lane, g] of lanes) {
          out[`${lane}/${name}`] = this.#question(q.type, new Map([[lane, g]]));
        }
      } else out[name] = this.#question(q.type, lanes);
    }
    return out;
  }

  #question(type: string, lanes: ReadonlyMap<string, ClassGroup>): QuestionClasses {
    const all = new ClassGroup(type, this.#resamples);
    const byLane: Record<string, ClassTable> = {};
    let levels: string[] | undefined;
    const rank = (lane: string) => this.#lanes.get(lane) ?? Infinity;
    for (const [lane, g] of [...lanes].sort((a, b) => rank(a[0]) - rank(b[0]))) {
      all.merge(g);
      byLane[lane] = g.table(this.#level);
      levels ??= g.levels;
    }
    const overall = all.table(this.#level);
    // Every lane's matrix in the overall order of classes.
    for (const lane of Object.keys(byLane)) {
      byLane[lane] = reorder(byLane[lane] as ClassTable, overall.labels);
    }
    return { type, ...overall, ...(levels !== undefined ? { levels } : {}), lanes: byLane };
  }
}

/** A table with its classes in `labels`' order (a lane may have met them in another order). */
function reorder(t: ClassTable, labels: readonly string[]): ClassTable {
  if (t.labels.length === labels.length && t.labels.every((l, i) => l === labels[i])) return t;
  const at = (l: string) => t.labels.indexOf(l);
  const confusion = labels.map((g) => {
    const row = t.confusion[at(g)];
    return [...labels, ERROR_COLUMN].map((p) =>
      row === undefined ? 0 : (row[p === ERROR_COLUMN ? t.labels.length : at(p)] ?? 0)
    );
  });
  const out: ClassTable = {
    ...t,
    labels: [...labels],
    columns: [...labels, ERROR_COLUMN],
    confusion,
    ...tableFigures(labels, confusion),
  };
  return out;
}

/**
 * The per-class results of a list of decisions (grouped by case for the bootstrap), as a run's
 * {@linkcode ClassAccumulator} gives them.
 *
 * @param decisions Decisions, e.g. the lines of `decisions.jsonl`.
 * @param options Seed, replicates and coverage of the intervals.
 * @returns Per question: overall and per lane.
 * @throws {RangeError} When the options are invalid.
 */
export function classResults(
  decisions: readonly ClassInput[],
  options: ClassOptions = {},
): ClassResults {
  const acc = new ClassAccumulator(options);
  const byCase = new Map<string, ClassInput[]>();
  for (const d of decisions) {
    const id = d.case ?? "";
    const list = byCase.get(id);
    if (list === undefined) byCase.set(id, [d]);
    else list.push(d);
  }
  for (const [id, list] of byCase) acc.addCase(id, list);
  return acc.results();
}
