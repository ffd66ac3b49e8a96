/**
 * Paired comparison of two runs on the decisions both share: accuracy difference with a paired
 * bootstrap interval, McNemar counts and the exact McNemar p-value, per workflow and per question.
 *
 * @module
 */
import { isAnswered } from "./_answered.ts";
import type { AccuracyInput } from "./aggregate.ts";
import type { BootstrapOptions, Interval } from "./bootstrap.ts";
import { percentileInterval } from "./_quantile.ts";
import { poissonWeights } from "./_poisson.ts";
import { resolveBootstrapOptions } from "./_resample.ts";

/** The fields the paired comparison reads from a decision (a `DecisionRecord` has them all). */
export interface PairedInput extends AccuracyInput {
  /** Case id. */
  case: string;
  /** Workflow of the case. */
  workflow: string;
  /** Question name. */
  question: string;
}

/** Options of {@linkcode pairedComparison}. */
export interface PairedOptions extends BootstrapOptions {}

/** McNemar counts over shared decisions; a decision with an error counts as wrong. */
export interface McNemarCounts {
  /** Right in A, wrong in B. */
  onlyA: number;
  /** Wrong in A, right in B. */
  onlyB: number;
  /** Right in both. */
  both: number;
  /** Wrong in both. */
  neither: number;
}

/** One row of a paired comparison: a group of shared decisions. */
export interface PairedRow extends McNemarCounts {
  /** Workflow, or `workflow/question`. */
  key: string;
  /** Shared decisions in the group. */
  n: number;
  /** Accuracy of A on the group. */
  accuracyA: number;
  /** Accuracy of B on the group. */
  accuracyB: number;
  /** `accuracyB − accuracyA`. */
  difference: number;
  /** Exact two-sided McNemar p-value on the group's discordant pairs. */
  pValue: number;
}

/** The paired comparison of run A with run B. */
export interface PairedComparison {
  /** Decisions (`case/question`) present in both runs. */
  shared: number;
  /** Cases with at least one shared decision. */
  sharedCases: number;
  /** Decisions only run A has. */
  onlyInA: number;
  /** Decisions only run B has. */
  onlyInB: number;
  /** Accuracy of A on the shared decisions, null when none are shared. */
  accuracyA: number | null;
  /** Accuracy of B on the shared decisions, null when none are shared. */
  accuracyB: number | null;
  /** `accuracyB − accuracyA`, null when none are shared. */
  difference: number | null;
  /** Paired bootstrap interval of the difference (resampling shared cases), or null. */
  interval: Interval | null;
  /** McNemar counts over the shared decisions. */
  mcnemar: McNemarCounts;
  /** Exact two-sided McNemar p-value (1 when there are no discordant pairs; 0 on underflow). */
  pValue: number;
  /** Rows per workflow, in order of first appearance in A. */
  byWorkflow: PairedRow[];
  /** Rows per question (`workflow/question`), in order of first appearance in A. */
  byQuestion: PairedRow[];
}

/**
 * Exact two-sided McNemar test: a binomial test of the discordant pairs with p = 1/2,
 * p = min(1, 2·Σ_{k ≤ min(b, c)} C(b + c, k) / 2^(b + c)), computed in log space so thousands of
 * pairs do not overflow.
 *
 * @param onlyA Pairs right in A only (b).
 * @param onlyB Pairs right in B only (c).
 * @returns The p-value in [0, 1]; 1 when there are no discordant pairs. A p-value below the
 *   smallest double (about 5e-324, e.g. 0 against 1,100 discordant pairs) underflows to 0.
 * @throws {RangeError} When a count is not a non-negative integer.
 * @example
 * ```ts
 * import { mcnemarExact } from "./paired.ts";
 * mcnemarExact(0, 5); // 0.0625
 * mcnemarExact(1, 9); // 0.021484375
 * ```
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  for (const [name, v] of [["onlyA", onlyA], ["onlyB", onlyB]] as const) {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`Cannot run the McNemar test: ${name} "${v}" is not a count`);
    }
  }
  const n = onlyA + onlyB;
  const k = Math.min(onlyA, onlyB);
  // log C(n, i) − n·ln 2 for i = 0..k, summed with log-sum-exp around the largest (i = k).
  const logTerms: number[] = [];
  let logC = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    logTerms.push(logC - n * Math.LN2);
  }
  const max = logTerms[logTerms.length - 1] as number;
  let sum = 0;
  for (const t of logTerms) sum += Math.exp(t - max);
  return Math.min(1, 2 * Math.exp(max + Math.log(sum)));
}

/**
 * Compares run B with run A on the decisions both share (matched by `case/question`).
 *
 * A decision with an error counts as wrong. The difference interval is a paired Poisson bootstrap
 * over shared cases: in replicate b a case weighs its Poisson(1) draw from (seed, case id, b) —
 * the weights `bootstrapIntervals` gives each run's case — on both runs' answers together; the
 * interval is the percentile one of Σw·(right B − right A)/Σw·n over the replicates.
 *
 * @param a Decisions of run A (the baseline).
 * @param b Decisions of run B.
 * @param options Bootstrap resamples, seed and coverage.
 * @returns Accuracies, difference with interval, McNemar counts and p-value, and rows per
 *   workflow and per question.
 * @throws {RangeError} When a run holds the same `case/question` twice or the bootstrap options
 *   are invalid.
 * @example
 * ```ts
 * import { pairedComparison } from "./paired.ts";
 * const d = (c: string, correct: boolean) => ({
 *   case: c, workflow: "w", question: "q", correct, error: null,
 * });
 * const r = pairedComparison([d("1", false), d("2", true)], [d("1", true), d("2", true)]);
 * if (r.difference !== 0.5 || r.mcnemar.onlyB !== 1) throw new Error("B wins one");
 * ```
 */
export function pairedComparison(
  a: readonly PairedInput[],
  b: readonly PairedInput[],
  options: PairedOptions = {},
): PairedComparison {
  const tally = new PairedTally(options);
  // Run B's duplicates are named first, as they are found first.
  const seen = new Set<string>();
  for (const d of b) {
    const key = decisionKey(d);
    if (seen.has(key)) throw duplicate("B", d);
    seen.add(key);
  }
  seen.clear();
  for (const d of a) tally.addA(d);
  for (const d of b) tally.addB(d);
  return tally.result();
}

/** Options of {@linkcode PairedTally}. */
export interface PairedTallyOptions extends PairedOptions {
  /**
   * Order the rows by where each group first appears in run A sorted by case id (then by its
   * place in A), instead of by where it first appears in A as fed.
   * @default false
   */
  caseOrder?: boolean | undefined;
}

/** A group's McNemar counts and where it first appears among A's shared decisions. */
interface Group extends McNemarCounts {
  key: string;
  firstCase: string;
  firstSeq: number;
}

const IN_A = 1;
const RIGHT_A = 2;
const IN_B = 4;
/** Values per decision: `(seqA · GROUPS + group) · 8 + flags`, a safe integer. */
const GROUPS = 65536;

/**
 * The paired comparison fed one decision at a time: every decision of run A first
 * ({@linkcode PairedTally.addA}), then every decision of run B ({@linkcode PairedTally.addB}).
 * It holds one number per decision key (`case/question`) and a few counts per case and group,
 * never the decisions, so two runs of millions of decisions are compared streamed from their
 * files. {@linkcode pairedComparison} is this over two arrays.
 */
export class PairedTally {
  readonly #options: PairedTallyOptions;
  readonly #keys = new Map<string, number>();
  readonly #groups: Group[] = [];
  readonly #groupIndex = new Map<string, number>();
  readonly #workflows = new Map<string, Group>();
  readonly #perCase = new Map<string, { n: number; a: number; b: number }>();
  readonly #total = emptyCounts();
  #seqA = 0;
  #inA = 0;
  #inB = 0;
  #shared = 0;

  /**
   * A tally with nothing added yet.
   *
   * @param options Bootstrap resamples, seed and coverage; the order of the rows.
   * @throws {RangeError} When the bootstrap options are invalid.
   */
  constructor(options: PairedTallyOptions = {}) {
    resolveBootstrapOptions(options);
    this.#options = options;
  }

  /**
   * Adds one decision of run A (before any of run B).
   *
   * @param d The decision.
   * @throws {RangeError} When run A holds the decision twice, or run B's were already added.
   */
  addA(d: PairedInput): void {
    if (this.#inB > 0) throw new RangeError("Cannot add a decision of run A after run B's");
    const key = decisionKey(d);
    if (this.#keys.has(key)) throw duplicate("A", d);
    const name = `${d.workflow}/${d.question}`;
    let group = this.#groupIndex.get(name);
    if (group === undefined) {
      group = this.#groupIndex.size;
      if (group >= GROUPS) {
        throw new RangeError(`Cannot compare runs: more than ${GROUPS} questions`);
      }
      this.#groupIndex.set(name, group);
    }
    const right = d.correct && isAnswered(d) ? RIGHT_A : 0;
    this.#keys.set(key, (this.#seqA++ * GROUPS + group) * 8 + IN_A + right);
    this.#inA++;
  }

  /**
   * Adds one decision of run B (after all of run A's).
   *
   * @param d The decision.
   * @throws {RangeError} When run B holds the decision twice.
   */
  addB(d: PairedInput): void {
    const key = decisionKey(d);
    const value = this.#keys.get(key);
    if (value !== undefined && (value & IN_B) !== 0) throw duplicate("B", d);
    this.#inB++;
    if (value === undefined || (value & IN_A) === 0) {
      this.#keys.set(key, IN_B);
      return;
    }
    this.#keys.set(key, value + IN_B);
    this.#shared++;
    const rightA = (value & RIGHT_A) !== 0;
    const rightB = Boolean(d.correct) && isAnswered(d);
    const packed = Math.floor(value / 8);
    const seq = Math.floor(packed / GROUPS);
    const question = this.#group(this.#groupMap(), this.#groupName(packed % GROUPS), d.case, seq);
    const workflow = this.#group(this.#workflows, d.workflow, d.case, seq);
    for (const counts of [this.#total, workflow, question]) tally(counts, rightA, rightB);
    let c = this.#perCase.get(d.case);
    if (c === undefined) this.#perCase.set(d.case, c = { n: 0, a: 0, b: 0 });
    c.n++;
    if (rightA) c.a++;
    if (rightB) c.b++;
  }

  /**
   * Whether a decision is in both runs (once both have been added).
   *
   * @param d The decision's case and question.
   * @returns True when run A and run B both hold it.
   */
  isShared(d: Pick<PairedInput, "case" | "question">): boolean {
    const value = this.#keys.get(decisionKey(d));
    return value !== undefined && (value & IN_A) !== 0 && (value & IN_B) !== 0;
  }

  /** Decisions in both runs so far. */
  get shared(): number {
    return this.#shared;
  }

  /**
   * The comparison of what was added.
   *
   * @returns Accuracies, difference with interval, McNemar counts and p-value, and rows per
   *   workflow and per question.
   */
  result(): PairedComparison {
    const { resamples, seed, level } = resolveBootstrapOptions(this.#options);
    const total = { ...this.#total };
    const shared = this.#shared;
    const accuracyA = shared === 0 ? null : (total.onlyA + total.both) / shared;
    const accuracyB = shared === 0 ? null : (total.onlyB + total.both) / shared;
    return {
      shared,
      sharedCases: this.#perCase.size,
      onlyInA: this.#inA - shared,
      onlyInB: this.#inB - shared,
      accuracyA,
      accuracyB,
      difference: accuracyA === null || accuracyB === null ? null : accuracyB - accuracyA,
      interval: pairedInterval(this.#perCase, resamples, seed, level),
      mcnemar: total,
      pValue: mcnemarExact(total.onlyA, total.onlyB),
      byWorkflow: this.#rows(this.#workflows),
      byQuestion: this.#rows(this.#groupMap()),
    };
  }

  #names: string[] | undefined;
  #questions: Map<string, Group> | undefined;

  #groupName(index: number): string {
    this.#names ??= [...this.#groupIndex.keys()];
    return this.#names[index] as string;
  }

  #groupMap(): Map<string, Group> {
    return this.#questions ??= new Map();
  }

  /** The group `key`, made at its first shared decision; its first place kept up to date. */
  #group(map: Map<string, Group>, key: string, caseId: string, seq: number): Group {
    let group = map.get(key);
    if (group === undefined) {
      group = { key, firstCase: caseId, firstSeq: seq, ...emptyCounts() };
      map.set(key, group);
    } else if (this.#before(caseId, seq, group)) {
      group.firstCase = caseId;
      group.firstSeq = seq;
    }
    return group;
  }

  #before(caseId: string, seq: number, group: Group): boolean {
    if (this.#options.caseOrder && caseId !== group.firstCase) return caseId < group.firstCase;
    return seq < group.firstSeq;
  }

  #rows(map: ReadonlyMap<string, Group>): PairedRow[] {
    return [...map.values()].sort((x, y) =>
      this.#before(x.firstCase, x.firstSeq, y)
        ? -1
        : this.#before(y.firstCase, y.firstSeq, x)
        ? 1
        : 0
    ).map((g) => row(g.key, { onlyA: g.onlyA, onlyB: g.onlyB, both: g.both, neither: g.neither }));
  }
}

function decisionKey(d: Pick<PairedInput, "case" | "question">): string {
  return `${d.case}\u0000${d.question}`;
}

function duplicate(run: string, d: Pick<PairedInput, "case" | "question">): RangeError {
  return new RangeError(
    `Cannot compare runs: run ${run} holds decision "${d.case}/${d.question}" twice; deduplicate its decisions first`,
  );
}

function emptyCounts(): McNemarCounts {
  return { onlyA: 0, onlyB: 0, both: 0, neither: 0 };
}

function tally(counts: McNemarCounts, rightA: boolean, rightB: boolean): void {
  if (rightA && rightB) counts.both++;
  else if (rightA) counts.onlyA++;
  else if (rightB) counts.onlyB++;
  else counts.neither++;
}

function row(key: string, counts: McNemarCounts): PairedRow {
  const n = counts.onlyA + counts.onlyB + counts.both + counts.neither;
  const accuracyA = (counts.onlyA + counts.both) / n;
  const accuracyB = (counts.onlyB + counts.both) / n;
  return {
    key,
    n,
    accuracyA,
    accuracyB,
    difference: accuracyB - accuracyA,
    ...counts,
    pValue: mcnemarExact(counts.onlyA, counts.onlyB),
  };
}

function pairedInterval(
  cases: ReadonlyMap<string, { n: number; a: number; b: number }>,
  resamples: number,
  seed: number,
  level: number,
): Interval | null {
  if (cases.size === 0 || resamples === 0) return null;
  const n = new Float64Array(resamples);
  const delta = new Float64Array(resamples);
  const weights = new Uint8Array(resamples);
  for (const [id, c] of cases) {
    poissonWeights(seed, id, weights);
    const d = c.b - c.a;
    for (let r = 0; r < resamples; r++) {
      const w = weights[r] as number;
      n[r] = (n[r] as number) + w * c.n;
      delta[r] = (delta[r] as number) + w * d;
    }
  }
  // A replicate that weighs no shared case has no difference: left out.
  let kept = 0;
  for (let r = 0; r < resamples; r++) {
    if ((n[r] as number) > 0) delta[kept++] = (delta[r] as number) / (n[r] as number);
  }
  return percentileInterval(delta, kept, level);
}
