/**
 * The question set seam: where a run's cases come from. Typed Decisions (vendored, pinned,
 * verified) is the default; a workflow may instead name its own file (JSONL, CSV or Parquet) and
 * declare its questions. Both give the same `Case` objects, so the runner, reports, live monitor,
 * gate, sweep and notebooks never ask where a case came from.
 *
 * A user file is read twice and never held whole: `openQuestionSet` reads it once to check every
 * row and to learn what a run needs before its first request (counts, lanes, the sha256 and the
 * digests a run's fingerprint takes), and `QuestionSet.cases()` reads it again, yielding the
 * selected cases in file order. `loadQuestionSet` collects them into an array for callers that
 * want one.
 *
 * @module
 */
import { basename, isAbsolute, relative } from "node:path";
import { sha256Hex } from "../bytes.ts";
import { delimiterHint, type FileFacts, formatOf, type RawRow, readRows } from "./_read_rows.ts";
import { NotRegularFileError, regularFileSize } from "./_text_stream.ts";
import { type Dataset, type DatasetInfo, loadDataset } from "./load.ts";
import { QuestionSetError, type QuestionSetProblem } from "./question_set_error.ts";
import { questionsJson } from "./questions.ts";
import type { Case, DatasetSpec, QuestionDefinition, QuestionSetFormat } from "./schemas.ts";
import { RowChecker } from "./user_cases.ts";

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

/** Which cases of a question set a run asks (a workflow's `cases` field and `--limit`). */
export interface CaseSelection {
  /**
   * Only cases in these lanes (a workflow's `cases.workflows`).
   * @default every lane
   */
  lanes?: readonly string[] | undefined;
  /**
   * Only cases with these ids (each must exist).
   * @default every id
   */
  ids?: readonly string[] | undefined;
  /**
   * At most this many cases, the first in file order.
   * @default no limit
   */
  limit?: number | undefined;
}

/** Options of {@linkcode openQuestionSet}. */
export interface OpenQuestionSetOptions extends LoadQuestionSetOptions {
  /**
   * The cases asked. With a selection, a set where it matches nothing, or names an unknown id, is
   * refused.
   * @default every case, and no refusal
   */
  selection?: CaseSelection | undefined;
}

/** Options of {@linkcode QuestionSet.cases}. */
export interface QuestionSetCasesOptions {
  /**
   * Stops reading (the iteration ends early, without an error) once aborted.
   * @default never
   */
  signal?: AbortSignal | undefined;
}

/**
 * An opened question set: what a run needs before its first request, and its selected cases as a
 * stream. Every figure is about the selected cases, except `info` (the whole set).
 */
export interface QuestionSet {
  /** Where the cases come from (`info.rows`: cases in the whole set). */
  info: DatasetInfo;
  /** Selected cases. */
  count: number;
  /** Selected decisions: the questions of every selected case. */
  decisions: number;
  /** Selected cases per lane (`Case.workflow`), lanes in order of first appearance. */
  lanes: ReadonlyMap<string, number>;
  /** The question names the selected cases ask, in order of first appearance. */
  questions: readonly string[];
  /**
   * The lanes and question names of the cases the selection's lanes and ids keep, before its
   * limit or sample: what a threshold may name when only some of them are asked.
   */
  eligible?: { cases: number; lanes: readonly string[]; questions: readonly string[] } | undefined;
  /**
   * sha256 of the selected ids joined by line feeds: `sha256(ids.join("\n"))`, a run's
   * `case_ids_sha256`.
   */
  caseIdsSha256: string;
  /**
   * sha256 of the JSON array of the selected cases' questions:
   * `sha256("[" + cases.map((c) => questionsJson(c.questions)).join(",") + "]")`, a run's
   * `questions_sha256`.
   */
  questionsSha256: string;
  /**
   * The selected cases in set order. A user file is read again for each call; a file that changed
   * since it was opened ends the iteration with a `QuestionSetError`.
   *
   * @param options Abort signal.
   * @returns The cases, one at a time.
   */
  cases(options?: QuestionSetCasesOptions): AsyncIterable<Case>;
}

/** The name of the Typed Decisions question set in messages. */
const TYPED_DECISIONS = "Typed Decisions";

function display(path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(Deno.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** A sha256 taken piece by piece. */
interface TextDigest {
  update(text: string): void;
  hex(): Promise<string>;
}

/** Makes a fresh {@linkcode TextDigest}. */
type DigestFactory = () => TextDigest;

/** A digest that keeps its pieces and hashes them at the end: for a set held in memory anyway. */
const heldDigest: DigestFactory = () => {
  const parts: string[] = [];
  return { update: (text) => parts.push(text), hex: () => sha256Hex(parts.join("")) };
};

/** No digest at all. */
const noDigest: DigestFactory = () => ({ update: () => {}, hex: () => Promise.resolve("") });

/** An incremental digest (`node:crypto`, loaded only for a user file). */
async function streamingDigests(): Promise<DigestFactory> {
  const { createHash } = await import("node:crypto");
  return () => {
    const hash = createHash("sha256");
    return {
      update: (text) => hash.update(text),
      hex: () => Promise.resolve(hash.digest("hex")),
    };
  };
}

/** Running sums over the selected cases: counts, lanes, questions and the two digests. */
class SelectionDigest {
  count = 0;
  decisions = 0;
  readonly lanes = new Map<string, number>();
  readonly questions = new Set<string>();
  /** Lanes and questions of the cases kept by lanes and ids, the limit aside. */
  readonly eligibleLanes = new Set<string>();
  readonly eligibleQuestions = new Set<string>();
  #eligibleLast: Case["questions"] | null = null;
  eligibleCount = 0;
  readonly #selection: CaseSelection | undefined;
  readonly #lanes: ReadonlySet<string> | null;
  readonly #ids: ReadonlySet<string> | null;
  readonly #idHash: TextDigest;
  readonly #questionsHash: TextDigest;
  #lastQuestions: Case["questions"] | null = null;

  constructor(selection: CaseSelection | undefined, digest: DigestFactory = heldDigest) {
    this.#selection = selection;
    this.#idHash = digest();
    this.#questionsHash = digest();
    this.#questionsHash.update("[");
    this.#lanes = selection?.lanes ? new Set(selection.lanes) : null;
    this.#ids = selection?.ids ? new Set(selection.ids) : null;
  }

  /** Whether the case is selected (called in set order, each case once). */
  wants(item: Case): boolean {
    if (this.#lanes !== null && !this.#lanes.has(item.workflow)) return false;
    if (this.#ids !== null && !this.#ids.has(item.id)) return false;
    this.eligibleCount++;
    this.eligibleLanes.add(item.workflow);
    if (item.questions !== this.#eligibleLast) {
      for (const name in item.questions) this.eligibleQuestions.add(name);
      this.#eligibleLast = item.questions;
    }
    const limit = this.#selection?.limit;
    return limit === undefined || this.count < limit;
  }

  /** Whether no further case can be selected. */
  get full(): boolean {
    const limit = this.#selection?.limit;
    return limit !== undefined && this.count >= limit;
  }

  add(item: Case): void {
    if (this.count > 0) {
      this.#idHash.update("\n");
      this.#questionsHash.update(",");
    }
    this.count++;
    this.#idHash.update(item.id);
    const names = Object.keys(item.questions);
    this.decisions += names.length;
    this.lanes.set(item.workflow, (this.lanes.get(item.workflow) ?? 0) + 1);
    if (item.questions !== this.#lastQuestions) {
      for (const name of names) this.questions.add(name);
      this.#lastQuestions = item.questions;
    }
    this.#questionsHash.update(questionsJson(item.questions));
  }

  /**
   * The digests; refuses a selection naming an unknown id or matching nothing.
   *
   * @param known Whether an id is in the set.
   */
  async finish(
    known: (id: string) => boolean,
  ): Promise<{ caseIdsSha256: string; questionsSha256: string }> {
    const selection = this.#selection;
    if (selection !== undefined) {
      const unknown = (selection.ids ?? []).filter((id) => !known(id));
      if (unknown.length) {
        throw new RangeError(
          `Cannot select cases: unknown id ${unknown.slice(0, 3).map((i) => `"${i}"`).join(", ")}`,
        );
      }
      if (this.count === 0) throw new RangeError("Cannot run: the case selection matches no case");
    }
    this.#questionsHash.update("]");
    return {
      caseIdsSha256: await this.#idHash.hex(),
      questionsSha256: await this.#questionsHash.hex(),
    };
  }
}

/**
 * Opens a workflow's question set: checks it whole, verified before anything is sent, and learns
 * what a run needs up front; the cases are then read as a stream (`cases()`).
 *
 * Without `dataset`, the Typed Decisions test split (checked as `loadDataset` checks it, held in
 * memory: 400 cases); with `typedQuestions`, each case keeps only those questions and cases asking
 * none of them are left out. With `dataset`, the user file is read by lines (JSONL), records (CSV)
 * or row groups (Parquet), its sha256 taken as it is read, and every row is checked against the
 * declaration; any problem refuses the whole set. Memory grows with the number of rows only by
 * the ids kept to find repeats.
 *
 * @param source The workflow's `dataset`, `questions` and `cases.questions`.
 * @param options Default lane, the vendored folder and the case selection.
 * @returns The opened set.
 * @throws {QuestionSetError} When the file is missing, not a regular file or unreadable, a row
 *   breaks the declaration, or a `typedQuestions` name is not a Typed Decisions question; the
 *   message names file, line and field of each problem.
 * @throws {DatasetIntegrityError} When the vendored Typed Decisions files fail their check.
 * @throws {RangeError} When the selection names an unknown id or matches no case.
 * @example
 * ```ts
 * import { openQuestionSet } from "./question_set.ts";
 * const set = await openQuestionSet({}, { selection: { lanes: ["customer_service"], limit: 5 } });
 * set.count; // 5
 * for await (const item of set.cases()) console.log(item.id);
 * ```
 */
export async function openQuestionSet(
  source: QuestionSetSource,
  options: OpenQuestionSetOptions = {},
): Promise<QuestionSet> {
  if (source.dataset === undefined) {
    let dataset = await loadDataset(options.datasetDir ? { dir: options.datasetDir } : {});
    if (source.typedQuestions !== undefined) {
      dataset = typedSubset(dataset, source.typedQuestions);
    }
    return inMemorySet(dataset, options.selection);
  }
  const spec = source.dataset;
  const definitions = source.questions ?? {};
  const file = display(spec.path);
  const lane = options.lane ?? "default";
  const digest = new SelectionDigest(options.selection, await streamingDigests());
  const checker = new RowChecker(spec, definitions, { file, lane, format: formatOrThrow(spec) });
  const opened = await stat(spec.path, file);
  const facts = await checkRows(spec.path, checker, (item) => {
    if (digest.wants(item)) digest.add(item);
  });
  checker.finish();
  if (checker.problemCount) {
    throw new QuestionSetError(checker.problems(), { total: checker.problemCount });
  }
  const ids = checker.ids;
  const digests = await digest.finish((id) => ids.has(id));
  const laneField = spec.lane ?? null;
  const definitionsSha256 = await sha256Hex(
    JSON.stringify({ id: spec.id, state: spec.state, lane: laneField, questions: definitions }),
  );
  const info: DatasetInfo = {
    dataset: basename(spec.path),
    revision: facts.sha256,
    license: "unspecified",
    split: "file",
    url: file,
    sha256: facts.sha256,
    rows: checker.rows,
    questionSet: {
      kind: "file",
      card_protocol: false,
      path: file,
      format: facts.format,
      sha256: facts.sha256,
      bytes: facts.bytes,
      rows: checker.rows,
      id: spec.id,
      state: spec.state,
      lane: laneField,
      questions: structuredClone(definitions) as Record<string, QuestionDefinition>,
      definitions_sha256: definitionsSha256,
      labelled: { ...checker.labelled },
    },
  };
  const selection = options.selection;
  return {
    info,
    count: digest.count,
    decisions: digest.decisions,
    lanes: digest.lanes,
    questions: [...digest.questions],
    eligible: {
      cases: digest.eligibleCount,
      lanes: [...digest.eligibleLanes],
      questions: [...digest.eligibleQuestions],
    },
    ...digests,
    cases: (casesOptions = {}) =>
      rereadCases(spec, definitions, { file, lane, selection, opened, facts, ...casesOptions }),
  };
}

function formatOrThrow(spec: DatasetSpec): QuestionSetFormat {
  const format = formatOf(spec.path);
  if (format === null) {
    throw new QuestionSetError([{
      file: display(spec.path),
      line: null,
      field: null,
      message: "is not .jsonl, .csv or .parquet",
    }]);
  }
  return format;
}

/** The file's size and modification time, refusing what is not a regular file. */
async function stat(path: string, file: string): Promise<{ size: number; mtime: number | null }> {
  try {
    const size = await regularFileSize(path);
    const mtime = (await Deno.stat(path)).mtime?.getTime() ?? null;
    return { size, mtime };
  } catch (error) {
    throw unreadable(file, error);
  }
}

function unreadable(file: string, error: unknown): QuestionSetError {
  const message = error instanceof Deno.errors.NotFound
    ? "file not found (dataset.path is relative to the workflow file)"
    : error instanceof NotRegularFileError
    ? error.message
    : `cannot be read: ${(error as Error).message}`;
  return new QuestionSetError([{ file, line: null, field: null, message }]);
}

/** Reads every row of a file through the checker, handing each row's case to `onCase`. */
async function checkRows(
  path: string,
  checker: RowChecker,
  onCase: (item: Case) => void,
): Promise<FileFacts> {
  const read: { facts?: FileFacts } = {};
  for await (const batch of checkedBatches(path, checker, read)) {
    for (const item of batch) onCase(item);
  }
  return read.facts ?? { format: checker.format, sha256: "", bytes: 0 };
}

/**
 * The cases of a file's rows, batch by batch (rows with problems give none); `read.facts` is set
 * once the file has been read to its end.
 */
async function* checkedBatches(
  path: string,
  checker: RowChecker,
  read: { facts?: FileFacts },
): AsyncGenerator<Case[]> {
  let hint = "";
  const rows = readRows(path, {
    problem: (line, field, message) => checker.formatProblem(line, field, message),
    columns: (columns) => {
      hint = delimiterHint(columns);
      checker.header(columns, hint);
    },
  });
  try {
    for (;;) {
      const next: IteratorResult<RawRow[], FileFacts> = await rows.next();
      if (next.done) {
        read.facts = next.value;
        return;
      }
      const cases: Case[] = [];
      for (const row of next.value) {
        const item = checker.row(row);
        if (item !== null) cases.push(item);
      }
      yield cases;
    }
  } catch (error) {
    if (error instanceof QuestionSetError) throw error;
    throw unreadable(checker.file, error);
  } finally {
    await rows.return(undefined as never);
  }
}

async function* rereadCases(
  spec: DatasetSpec,
  definitions: Readonly<Record<string, QuestionDefinition>>,
  context: {
    file: string;
    lane: string;
    selection: CaseSelection | undefined;
    opened: { size: number; mtime: number | null };
    facts: FileFacts;
    signal?: AbortSignal | undefined;
  },
): AsyncGenerator<Case> {
  const { file, facts } = context;
  const changed = (what: string): QuestionSetError =>
    new QuestionSetError([{
      file,
      line: null,
      field: null,
      message: `changed while the run read it (${what}); run again on a file that stays as it is`,
    }]);
  const now = await stat(spec.path, file);
  if (now.size !== context.opened.size || now.mtime !== context.opened.mtime) {
    throw changed("its size or modification time differs");
  }
  const checker = new RowChecker(spec, definitions, {
    file,
    lane: context.lane,
    format: facts.format,
    uniqueIds: false,
  });
  // This read applies the selection only: its figures were taken by the first.
  const digest = new SelectionDigest(context.selection, noDigest);
  const read: { facts?: FileFacts } = {};
  for await (const batch of checkedBatches(spec.path, checker, read)) {
    if (checker.problemCount) {
      throw changed(`${formatFirst(checker.problems())}`);
    }
    for (const item of batch) {
      if (!digest.wants(item)) continue;
      digest.add(item);
      yield item;
      if (context.signal?.aborted) return;
    }
    // The limit reached: the rest of the file is not read.
    if (digest.full) return;
  }
  if (checker.problemCount) throw changed(formatFirst(checker.problems()));
  const sha256 = read.facts?.sha256;
  if (sha256 !== facts.sha256) throw changed("its sha256 differs");
}

function formatFirst(problems: readonly QuestionSetProblem[]): string {
  const first = problems[0];
  return first === undefined ? "a problem" : `${first.line ?? "-"}: ${first.message}`;
}

/** A question set held in memory (Typed Decisions) in the streaming shape. */
async function inMemorySet(
  dataset: Dataset,
  selection: CaseSelection | undefined,
): Promise<QuestionSet> {
  const digest = new SelectionDigest(selection);
  const selected: Case[] = [];
  for (const item of dataset.cases) {
    if (!digest.wants(item)) continue;
    digest.add(item);
    selected.push(item);
  }
  const ids = new Set(dataset.cases.map((c) => c.id));
  const digests = await digest.finish((id) => ids.has(id));
  return {
    info: dataset.info,
    count: digest.count,
    decisions: digest.decisions,
    lanes: digest.lanes,
    questions: [...digest.questions],
    eligible: {
      cases: digest.eligibleCount,
      lanes: [...digest.eligibleLanes],
      questions: [...digest.eligibleQuestions],
    },
    ...digests,
    async *cases(options: QuestionSetCasesOptions = {}): AsyncGenerator<Case> {
      for (const item of selected) {
        if (options.signal?.aborted) return;
        yield item;
      }
    },
  };
}

/**
 * Loads a workflow's question set whole, verified before anything is sent: every case of
 * {@linkcode openQuestionSet}'s set, collected into an array.
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
  const set = await openQuestionSet(source, options);
  return { cases: await Array.fromAsync(set.cases()), info: set.info };
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
