/**
 * A run on the user's own question set, for the exports that need its states: the cases read
 * back from the recorded file (only while its sha256 matches `run.json`'s) and the Every Eval
 * Ever `source_data` of a private file (`source_type: "other"`).
 *
 * @module
 */
import { basename } from "node:path";
import {
  type Case,
  type FileQuestionSetRecord,
  openRecordedStates,
  withRecordedStates,
} from "../dataset/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";

/** The recorded user file of a run, or null for a run on Typed Decisions. */
export function userSetOf(run: RunJson): FileQuestionSetRecord | null {
  const set = run.spec.question_set;
  return set?.kind === "file" ? set : null;
}

/**
 * Each decision with its case read from the run's recorded file, in decision order.
 *
 * @param run The run.
 * @param set Its recorded file.
 * @param decisions Its decisions.
 * @param options The run directory (a relative recorded path is also looked for from there).
 * @returns The pairs.
 * @throws {RangeError} When the file is missing or changed since the run (the message names it),
 *   or it lacks a case.
 */
export async function* userSetDecisions(
  run: RunJson,
  set: FileQuestionSetRecord,
  decisions: AsyncIterable<DecisionRecord>,
  options: { runDir?: string | undefined; format: string },
): AsyncGenerator<[DecisionRecord, Case]> {
  const states = await openRecordedStates(set, {
    runDir: options.runDir,
    lane: run.spec.workflow,
  });
  if ("message" in states) {
    throw new RangeError(
      `Cannot export run "${run.id}" as ${options.format}: ${
        states.message.replace(/^The/, "the")
      }, so the states it asked about are not at hand`,
    );
  }
  for await (const { item, case: found } of withRecordedStates(decisions, states)) {
    if (found === null) {
      throw new RangeError(
        `Cannot export run "${run.id}" as ${options.format}: case "${item.case}" is not in ${set.path}`,
      );
    }
    yield [item, found];
  }
}

/**
 * Every Eval Ever's `source_data` for a user file: a private data set named by its file, with
 * its format, rows and sha256.
 *
 * @param run The run.
 * @param set Its recorded file.
 * @returns The `source_data` object.
 */
export function userSetSourceData(run: RunJson, set: FileQuestionSetRecord): {
  dataset_name: string;
  source_type: "other";
  additional_details: Record<string, string>;
} {
  return {
    dataset_name: basename(set.path),
    source_type: "other",
    additional_details: {
      path: set.path,
      format: set.format,
      sha256: set.sha256,
      bytes: String(set.bytes),
      rows: String(set.rows),
      definitions_sha256: set.definitions_sha256,
      cases: String(run.spec.cases),
      case_ids_sha256: run.spec.case_ids_sha256,
      questions_sha256: run.spec.questions_sha256,
    },
  };
}
