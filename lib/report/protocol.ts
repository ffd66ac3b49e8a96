/**
 * What every report says about a run's question set: the star rating only for the Typed
 * Decisions card protocol, a note when the run is not that protocol (a subset of its questions,
 * or a user file with how hard labels are scored), and threshold names with their question,
 * lane and bound.
 *
 * @module
 */
import { rating } from "../metrics/mod.ts";
import type { RunSpec, ThresholdResult } from "../record/mod.ts";

/** The rating shown for a run that is not the card protocol. */
export const NO_RATING = "none (not the Typed Decisions card protocol)";

/**
 * The star rating of a run: the dataset card's ★ scale for a card-protocol run, none otherwise
 * (the card's reference points mean nothing for other questions).
 *
 * @param spec The run's spec.
 * @param summary Its summary.
 * @returns The rating text.
 * @example
 * ```ts
 * import { runRating } from "./protocol.ts";
 * const question_set = {
 *   kind: "typed-decisions" as const,
 *   card_protocol: false as const,
 *   questions: ["urgency"],
 * };
 * runRating({ question_set }, { answered: 400, metrics: { accuracy: 0.8 } }); // "none (not the Typed Decisions card protocol)"
 * ```
 */
export function runRating(
  spec: Pick<RunSpec, "question_set">,
  summary: Parameters<typeof rating>[0],
): string {
  return spec.question_set === undefined ? rating(summary) : NO_RATING;
}

/**
 * The note reports print for a run that is not the card protocol, or null for one that is.
 *
 * @param spec The run's spec.
 * @returns One paragraph of plain text, or null.
 */
export function protocolNote(spec: Pick<RunSpec, "question_set" | "cases">): string | null {
  const set = spec.question_set;
  if (set === undefined) return null;
  if (set.kind === "typed-decisions") {
    return `Not the dataset card's protocol: each case was asked only ${
      set.questions.map((q) => `"${q}"`).join(", ")
    } (the card asks all five questions of a case in one request, and one-question requests change the answers). No star rating; the card's reference points do not apply.`;
  }
  const unlabelled = Object.entries(set.labelled)
    .filter(([name, n]) => set.questions[name]?.gold !== undefined && n < set.rows)
    .map(([name, n]) => `${name} ${set.rows - n}`);
  const unscored = Object.entries(set.questions).filter(([, q]) => q.gold === undefined)
    .map(([name]) => name);
  return [
    `Your question set ${set.path} (${set.format}, ${set.rows} rows, sha256 ${
      set.sha256.slice(0, 12)
    }), not the Typed Decisions card protocol: no star rating, and the card's reference points do not apply.`,
    "A hard label is scored as a one-hot distribution: KL(gold ‖ pred) is then −ln p(label) and Brier is measured against the one-hot vector.",
    unlabelled.length
      ? `Rows without a gold value were asked and recorded but not scored (unlabelled: ${
        unlabelled.join(", ")
      }).`
      : "",
    unscored.length ? `Asked and recorded only (no gold field): ${unscored.join(", ")}.` : "",
  ].filter(Boolean).join(" ");
}

/**
 * A threshold as reports name it: the metric with its question, lane and bound.
 *
 * @param t A threshold result.
 * @returns e.g. `accuracy (question urgent, lower bound)`.
 * @example
 * ```ts
 * import { thresholdName } from "./protocol.ts";
 * thresholdName({ metric: "accuracy", question: "urgent", bound: "lower" }); // "accuracy (question urgent, lower bound)"
 * ```
 */
export function thresholdName(
  t: Pick<ThresholdResult, "metric" | "question" | "lane" | "bound" | "baseline">,
): string {
  const parts = [
    ...(t.question !== undefined ? [`question ${t.question}`] : []),
    ...(t.lane !== undefined ? [`lane ${t.lane}`] : []),
    ...(t.bound === "lower" || t.bound === "upper" ? [`${t.bound} bound`] : []),
  ];
  // Against a baseline the value is the difference from it (a paired interval's lower end).
  const name = t.baseline !== undefined ? `${t.metric} − baseline ${t.baseline}` : t.metric;
  return parts.length ? `${name} (${parts.join(", ")})` : name;
}

/**
 * What reports call a group of cases: "lane" for a user file's groups, "workflow" for Typed
 * Decisions' own workflows.
 *
 * @param spec The run's spec.
 * @returns `lane` or `workflow`.
 * @example
 * ```ts
 * import { laneWord } from "./protocol.ts";
 * laneWord({}); // "workflow"
 * ```
 */
export function laneWord(spec: Pick<RunSpec, "question_set">): "lane" | "workflow" {
  return spec.question_set?.kind === "file" ? "lane" : "workflow";
}

/**
 * A threshold's verdict as reports print it.
 *
 * @param t A threshold result.
 * @returns `pass`, `FAIL`, or `not evaluated (<why>)` when a partial selection asked no case of
 *   its question or lane (it neither passes nor fails).
 * @example
 * ```ts
 * import { thresholdVerdict } from "./protocol.ts";
 * thresholdVerdict({ pass: null, not_evaluated: 'no case selected by --limit 3 has lane "chat"' });
 * // 'not evaluated (no case selected by --limit 3 has lane "chat")'
 * ```
 */
export function thresholdVerdict(t: Pick<ThresholdResult, "pass" | "not_evaluated">): string {
  if (t.pass === null) return `not evaluated (${t.not_evaluated ?? "no decision"})`;
  return t.pass ? "pass" : "FAIL";
}
