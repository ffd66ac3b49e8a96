/**
 * Whether a run is a leaderboard result: the dataset card's protocol (Typed Decisions, the test
 * split, all 400 cases, all five questions of each asked in one request) run to completion.
 *
 * @module
 */
import { DATASET_ID, PINNED, QUESTIONS_PER_CASE } from "../dataset/mod.ts";
import type { RunJson } from "../record/mod.ts";

/**
 * Says why a run cannot stand as a leaderboard result, or null when it can.
 *
 * @param run The run record.
 * @param decisions Decisions recorded for the run.
 * @returns The reason (a phrase that completes "Cannot export …: "), or null.
 * @example
 * ```ts ignore
 * import { leaderboardProblem } from "./card_protocol.ts";
 * leaderboardProblem(run, records.length); // e.g. 'it ran 40 of the 400 test cases (--limit)'
 * ```
 */
export function leaderboardProblem(run: RunJson, decisions: number): string | null {
  const spec = run.spec;
  const all = PINNED.test.rows;
  if (spec.dataset !== DATASET_ID) {
    return `it ran on "${spec.dataset}", not the Typed Decisions test split the leaderboard scores`;
  }
  if (spec.split !== "test") {
    return `it ran on the "${spec.split}" split; the leaderboard scores the test split`;
  }
  // A question-set run marks itself as off the card protocol; older records lack the field.
  if ((spec as unknown as Record<string, unknown>).card_protocol === false) {
    return "it asked a subset of the questions, which is not the card protocol";
  }
  if (spec.cases !== all) {
    return `it ran ${spec.cases} of the ${all} test cases; run all of them (no --limit or case selection)`;
  }
  if (decisions !== all * QUESTIONS_PER_CASE) {
    return `it holds ${decisions} decisions, not the ${
      all * QUESTIONS_PER_CASE
    } of the full test split`;
  }
  if (run.status !== "completed") {
    return `its status is "${run.status}"; only a completed run (every decision answered) is a leaderboard result — finish it with deno task bench --resume`;
  }
  return null;
}
