/**
 * The question set seam: where a run's cases come from. Typed Decisions (vendored, pinned,
 * verified) is the default; a workflow may instead name its own file (JSONL, CSV or Parquet) and
 * declare its questions. Both give the same `Case` objects, so the runner, reports, live monitor,
 * gate, sweep and notebooks never ask where a case came from.
 *
 * @module
 */
import { basename, isAbsolute, relative } from "node:path";
import { sha256Hex } from "../bytes.ts";
import { readRows } from "./_read_rows.ts";
import { type Dataset, loadDataset } from "./load.ts";
import { QuestionSetError } from "./question_set_error.ts";
import type { Case, DatasetSpec, QuestionDefinition } from "./schemas.ts";
import { userCases } from "./user_cases.ts";

/** What a workflow says about its question set. */
export interface QuestionSetSource {
  /** A user file and its field mapping; absent: Typed Decisions. */
  dataset?: DatasetSpec | undefined;
  /** The questions asked of each row of the user file (with their gold fields). */
  questions?: Readonly<Record<string, QuestionDefinition>> | undefined;
  /** Typed Decisions only: ask just these questions (`cases.questions`); not the card protocol. */
  typedQuestions?: readonly string[] | undefined;
}

/** Options of {@linkcode loadQuestionSet}. */
export interface LoadQuestionSetOptions {
  /**
   * The lane of every case when a user dataset names no lane field (the workflow's name).
   * @default "default"
   */
  lane?: string;
  /**
   * Folder of the vendored Typed Decisions files.
   * @default the vendored `vendor/typed-decisions/`
   */
  datasetDir?: string | URL;
}

/** The name of the Typed Decisions question set in messages. */
const TYPED_DECISIONS = "Typed Decisions";

function display(path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(Deno.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/**
 * Loads a workflow's question set, verified before anything is sent.
 *
 * Without `dataset`, the Typed Decisions test split (checked as `loadDataset` checks it); with
 * `typedQuestions`, each case keeps only those questions and cases asking none of them are left
 * out. With `dataset`, the user file is read (its sha256 taken) and every row is checked against
 * the declaration; any problem refuses the whole set.
 *
 * @param source The workflow's `dataset`, `questions` and `cases.questions`.
 * @param options Default lane and the vendored folder.
 * @returns The cases and where they come from (`info.questionSet` is set unless the set is the
 *   Typed Decisions card protocol).
 * @throws {QuestionSetError} When the file is missing or unreadable, a row breaks the declaration,
 *   or a `typedQuestions` name is not a Typed Decisions question; the message names file, line and
 *   field of each problem.
 * @throws {DatasetIntegrityError} When the vendored Typed Decisions files fail their check.
 * @example
 * ```ts
 * import { loadQuestionSet } from "./question_set.ts";
 * const set = await loadQuestionSet({ typedQuestions: ["urgency"] });
 * set.cases.length; // 400 cases, one question each
 * set.info.questionSet; // { kind: "typed-decisions", card_protocol: false, questions: ["urgency"] }
 * ```
 */
export async function loadQuestionSet(
  source: QuestionSetSource,
  options: LoadQuestionSetOptions = {},
): Promise<Dataset> {
  if (source.dataset === undefined) {
    const dataset = await loadDataset(options.datasetDir ? { dir: options.datasetDir } : {});
    if (source.typedQuestions === undefined) return dataset;
    return typedSubset(dataset, source.typedQuestions);
  }
  const spec = source.dataset;
  const definitions = source.questions ?? {};
  const file = display(spec.path);
  let raw;
  try {
    raw = await readRows(spec.path, file);
  } catch (error) {
    const message = error instanceof Deno.errors.NotFound
      ? "file not found (dataset.path is relative to the workflow file)"
      : `cannot be read: ${(error as Error).message}`;
    throw new QuestionSetError([{ file, line: null, field: null, message }]);
  }
  const built = userCases(raw, spec, definitions, { file, lane: options.lane ?? "default" });
  if (built.problems.length) throw new QuestionSetError(built.problems);
  const lane = spec.lane ?? null;
  const definitionsSha256 = await sha256Hex(
    JSON.stringify({ id: spec.id, state: spec.state, lane, questions: definitions }),
  );
  return {
    cases: built.cases,
    info: {
      dataset: basename(spec.path),
      revision: raw.sha256,
      license: "unspecified",
      split: "file",
      url: file,
      sha256: raw.sha256,
      rows: built.cases.length,
      questionSet: {
        kind: "file",
        card_protocol: false,
        path: file,
        format: raw.format,
        sha256: raw.sha256,
        bytes: raw.bytes,
        rows: built.cases.length,
        id: spec.id,
        state: spec.state,
        lane,
        questions: structuredClone(definitions) as Record<string, QuestionDefinition>,
        definitions_sha256: definitionsSha256,
        labelled: built.labelled,
      },
    },
  };
}

function typedSubset(dataset: Dataset, names: readonly string[]): Dataset {
  const known = new Set(dataset.cases.flatMap((c) => Object.keys(c.questions)));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length) {
    throw new QuestionSetError(unknown.map((name) => ({
      file: TYPED_DECISIONS,
      line: null,
      field: "cases.questions",
      message: `"${name}" is not a question of any case (questions: ${
        [...known].sort().join(", ")
      })`,
    })));
  }
  const wanted = new Set(names);
  const shared = new Map<Case["questions"], Case["questions"]>();
  const cases: Case[] = [];
  for (const item of dataset.cases) {
    let questions = shared.get(item.questions);
    if (questions === undefined) {
      const kept = Object.entries(item.questions).filter(([name]) => wanted.has(name));
      questions = Object.freeze(Object.fromEntries(kept));
      shared.set(item.questions, questions);
    }
    if (Object.keys(questions).length === 0) continue;
    const gold = Object.fromEntries(
      Object.entries(item.gold).filter(([name]) => Object.hasOwn(questions, name)),
    );
    cases.push({ ...item, questions, gold });
  }
  return {
    cases,
    info: {
      ...dataset.info,
      questionSet: { kind: "typed-decisions", card_protocol: false, questions: [...names] },
    },
  };
}
