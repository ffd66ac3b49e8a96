/**
 * Stability under repeated asking: how often a decision's top answer flips and how far its
 * probability drifts when the same case is asked again (`--repeat`).
 *
 * Definitions: the reference of each decision (case and question) is its answer in the official
 * first pass; its top answer is the argmax of the predicted distribution (the option listed first
 * on a tie). Each answered repeat of that decision is compared with it:
 * - flip: the repeat's top answer differs from the reference's;
 * - drift: |p_repeat(reference top answer) − p_reference(reference top answer)|.
 * Per decision, "flipped" means at least one of its repeats flipped, and its drift is the largest
 * over its repeats. A row reports the share of compared decisions that flipped and the median,
 * 95th percentile (type 7, linear interpolation) and maximum of the per-decision drift. Decisions
 * whose reference is unanswered are not compared; repeats that failed are counted as errors and
 * not compared.
 *
 * @module
 */
import { sortedPercentile } from "./_quantile.ts";
import { probabilityOf, questionKey, topOf } from "./_distribution.ts";

/** One answer to a decision: the official one or a repeat. */
export interface StabilityInput {
  /** Case id. */
  case: string;
  /** Question name. */
  question: string;
  /** Workflow of the case. */
  workflow?: string | undefined;
  /** The predicted distribution, null when not answered. */
  predicted: Readonly<Record<string, number>> | null;
  /** The failure, or null (absent) when answered. */
  error?: unknown;
}

/** A repeated answer, with the concurrency it was asked at. */
export interface RepeatInput extends StabilityInput {
  /** Requests in flight during its pass. */
  parallel: number;
}

/** Drift of the top answer's probability across decisions. */
export interface DriftSummary {
  /** Median. */
  median: number;
  /** 95th percentile. */
  p95: number;
  /** Maximum. */
  max: number;
}

/** Stability over a group of decisions. */
export interface StabilityRow {
  /** `all`, `parallel N`, or `workflow/question`. */
  key: string;
  /** Decisions compared (answered reference and at least one answered repeat). */
  decisions: number;
  /** Answered repeats compared. */
  repeats: number;
  /** Decisions whose top answer flipped in at least one repeat. */
  flipped: number;
  /** flipped / decisions, null when nothing was compared. */
  flipRate: number | null;
  /** Per-decision drift figures, null when nothing was compared. */
  drift: DriftSummary | null;
  /** Repeats that failed (not compared). */
  errors: number;
}

/** Stability of a run. */
export interface StabilitySummary {
  /** Overall. */
  overall: StabilityRow;
  /** Per concurrency, in the order first seen. */
  byParallel: StabilityRow[];
  /** Per question (`workflow/question`), in the order first seen. */
  byQuestion: StabilityRow[];
}

function answered(d: StabilityInput): boolean {
  return (d.error === null || d.error === undefined) && d.predicted !== null;
}

interface Comparison {
  decision: string;
  question: string;
  parallel: number;
  flip: boolean;
  drift: number;
}

function rowOf(key: string, comparisons: readonly Comparison[], errors: number): StabilityRow {
  const byDecision = new Map<string, { flip: boolean; drift: number }>();
  for (const c of comparisons) {
    const seen = byDecision.get(c.decision);
    if (seen) {
      seen.flip ||= c.flip;
      seen.drift = Math.max(seen.drift, c.drift);
    } else byDecision.set(c.decision, { flip: c.flip, drift: c.drift });
  }
  const decisions = byDecision.size;
  const flipped = [...byDecision.values()].filter((d) => d.flip).length;
  const drifts = Float64Array.from([...byDecision.values()].map((d) => d.drift)).sort();
  return {
    key,
    decisions,
    repeats: comparisons.length,
    flipped,
    flipRate: decisions === 0 ? null : flipped / decisions,
    drift: decisions === 0 ? null : {
      median: sortedPercentile(drifts, 50),
      p95: sortedPercentile(drifts, 95),
      max: drifts[drifts.length - 1] as number,
    },
    errors,
  };
}

/**
 * Compares repeated answers with the official ones.
 *
 * @param official The official (first-pass) decisions.
 * @param repeats The repeated answers, any number per decision.
 * @returns Overall, per-concurrency and per-question rows.
 * @example
 * ```ts
 * import { stabilitySummary } from "./stability.ts";
 * const first = { case: "a", question: "q", predicted: { x: 0.6, y: 0.4 } };
 * const again = { ...first, predicted: { x: 0.45, y: 0.55 }, parallel: 4 };
 * const s = stabilitySummary([first], [again]);
 * // the top answer flipped from x to y; p(x) moved by 0.15
 * if (s.overall.flipRate !== 1 || Math.abs(s.overall.drift!.max - 0.15) > 1e-12) throw new Error();
 * ```
 */
export function stabilitySummary(
  official: readonly StabilityInput[],
  repeats: readonly RepeatInput[],
): StabilitySummary {
  const reference = new Map<string, { top: string; p: number }>();
  for (const d of official) {
    if (!answered(d)) continue;
    const top = topOf(d.predicted as Readonly<Record<string, number>>);
    if (top) reference.set(`${d.case}\u0000${d.question}`, { top: top.key, p: top.p });
  }
  const comparisons: Comparison[] = [];
  const failed: { question: string; parallel: number }[] = [];
  const parallels: number[] = [];
  const questions: string[] = [];
  for (const r of repeats) {
    const question = questionKey(r);
    if (!parallels.includes(r.parallel)) parallels.push(r.parallel);
    if (!questions.includes(question)) questions.push(question);
    const decision = `${r.case}\u0000${r.question}`;
    const ref = reference.get(decision);
    if (!ref) continue;
    if (!answered(r)) {
      failed.push({ question, parallel: r.parallel });
      continue;
    }
    const predicted = r.predicted as Readonly<Record<string, number>>;
    comparisons.push({
      decision,
      question,
      parallel: r.parallel,
      flip: topOf(predicted)?.key !== ref.top,
      drift: Math.abs(probabilityOf(predicted, ref.top) - ref.p),
    });
  }
  return {
    overall: rowOf("all", comparisons, failed.length),
    byParallel: parallels.map((p) =>
      rowOf(
        `parallel ${p}`,
        comparisons.filter((c) => c.parallel === p),
        failed.filter((f) => f.parallel === p).length,
      )
    ),
    byQuestion: questions.map((q) =>
      rowOf(
        q,
        comparisons.filter((c) => c.question === q),
        failed.filter((f) => f.question === q).length,
      )
    ),
  };
}
