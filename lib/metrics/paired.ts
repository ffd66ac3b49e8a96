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
  const { resamples, seed, level } = resolveBootstrapOptions(options);
  const byKeyB = indexDecisions(b, "B");
  const keysA = indexDecisions(a, "A");

  const total = emptyCounts();
  const workflows = new Map<string, McNemarCounts>();
  const questions = new Map<string, McNemarCounts>();
  const perCase = new Map<string, { n: number; a: number; b: number }>();
  for (const [key, da] of keysA) {
    const db = byKeyB.get(key);
    if (db === undefined) continue;
    const rightA = da.correct === true && isAnswered(da);
    const rightB = db.correct === true && isAnswered(db);
    for (
      const counts of [
        total,
        countsFor(workflows, da.workflow),
        countsFor(questions, `${da.workflow}/${da.question}`),
      ]
    ) tally(counts, rightA, rightB);
    const c = perCase.get(da.case) ?? { n: 0, a: 0, b: 0 };
    c.n++;
    if (rightA) c.a++;
    if (rightB) c.b++;
    perCase.set(da.case, c);
  }
  const shared = total.onlyA + total.onlyB + total.both + total.neither;
  const accuracyA = shared === 0 ? null : (total.onlyA + total.both) / shared;
  const accuracyB = shared === 0 ? null : (total.onlyB + total.both) / shared;
  return {
    shared,
    sharedCases: perCase.size,
    onlyInA: keysA.size - shared,
    onlyInB: byKeyB.size - shared,
    accuracyA,
    accuracyB,
    difference: accuracyA === null || accuracyB === null ? null : accuracyB - accuracyA,
    interval: pairedInterval(perCase, resamples, seed, level),
    mcnemar: total,
    pValue: mcnemarExact(total.onlyA, total.onlyB),
    byWorkflow: [...workflows].map(([key, counts]) => row(key, counts)),
    byQuestion: [...questions].map(([key, counts]) => row(key, counts)),
  };
}

function indexDecisions(
  decisions: readonly PairedInput[],
  run: string,
): Map<string, PairedInput> {
  const index = new Map<string, PairedInput>();
  for (const d of decisions) {
    const key = `${d.case}\u0000${d.question}`;
    if (index.has(key)) {
      throw new RangeError(
        `Cannot compare runs: run ${run} holds decision "${d.case}/${d.question}" twice; deduplicate its decisions first`,
      );
    }
    index.set(key, d);
  }
  return index;
}

function emptyCounts(): McNemarCounts {
  return { onlyA: 0, onlyB: 0, both: 0, neither: 0 };
}

function countsFor(map: Map<string, McNemarCounts>, key: string): McNemarCounts {
  let counts = map.get(key);
  if (counts === undefined) {
    counts = emptyCounts();
    map.set(key, counts);
  }
  return counts;
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
