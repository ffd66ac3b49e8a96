/**
 * The states of a run's recorded user file. A run keeps decisions, not states; for a run on the
 * user's own question set, `run.json` records the file's path and sha256, so the view and the
 * exports read each case's state back from that file — only while its bytes are still the ones
 * the run read (else they say the file changed, naming it).
 *
 * The file is never held whole: it is hashed as a stream, then read as a stream of cases. A file
 * of at most {@linkcode RECORDED_LOOKUP_ROWS} rows is looked up through an id → case map built on
 * first use; a larger one is read again for each lookup (stopping at the case). A text search
 * always streams.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { openQuestionSet, type QuestionSet } from "./question_set.ts";
import type { Case, FileQuestionSetRecord } from "./schemas.ts";

/** Rows up to which the cases of a recorded file are kept in an id → case map after first use. */
export const RECORDED_LOOKUP_ROWS = 20_000;

/** Options of {@linkcode openRecordedStates}. */
export interface RecordedStatesOptions {
  /**
   * The run directory: a relative recorded path is also looked for from the run directory's
   * parent and grandparent (a run kept in `runs/<id>/` inside the folder it ran from).
   * @default undefined (only the working directory)
   */
  runDir?: string | null | undefined;
  /**
   * More folders a relative recorded path is looked for from (e.g. `..` from `notebooks/`).
   * @default []
   */
  roots?: readonly string[] | undefined;
  /**
   * The lane of every case when the file has no lane field (the run's workflow name).
   * @default "default"
   */
  lane?: string | undefined;
  /**
   * Rows up to which lookups go through an id → case map built on first use.
   * @default {@linkcode RECORDED_LOOKUP_ROWS}
   */
  lookupRows?: number | undefined;
}

/** Why a recorded file's states are not at hand, as a sentence naming the file. */
export interface RecordedStatesProblem {
  /** `missing`: not found; `changed`: its sha256 is not the recorded one; `unreadable`: other. */
  kind: "missing" | "changed" | "unreadable";
  /** The file as recorded in `run.json`. */
  path: string;
  /** The file found (resolved), or null when none was. */
  found: string | null;
  /** The sentence to show, naming the file (without what follows from it). */
  message: string;
}

/** The states of a recorded user file whose bytes still match the run's record. */
export interface RecordedStates {
  /** The file read (resolved). */
  path: string;
  /** The record it matched. */
  record: FileQuestionSetRecord;
  /**
   * The case with an id.
   *
   * @param id The case id.
   * @returns The case, or null when the file has no such case.
   */
  caseOf(id: string): Promise<Case | null>;
  /**
   * The ids of the cases whose state's JSON text contains a text (case-insensitive), read as a
   * stream.
   *
   * @param text The text to find.
   * @returns The ids, in file order.
   */
  matching(text: string): Promise<string[]>;
  /**
   * Every case of the file, in file order, read as a stream.
   *
   * @returns The cases.
   */
  cases(): AsyncIterable<Case>;
}

/** Where a relative recorded path may be. */
function candidates(
  path: string,
  runDir: string | null | undefined,
  roots: readonly string[],
): string[] {
  if (isAbsolute(path)) return [path];
  const out = [resolve(path), ...roots.map((root) => resolve(root, path))];
  if (runDir) {
    out.push(resolve(dirname(runDir), path), resolve(dirname(dirname(resolve(runDir))), path));
  }
  return [...new Set(out)];
}

/** sha256 of a file's bytes, read as a stream. */
async function fileSha256(path: string): Promise<string> {
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  using file = await Deno.open(path, { read: true });
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

async function isFile(path: string): Promise<boolean> {
  return await Deno.stat(path).then((s) => s.isFile, () => false);
}

/**
 * Opens the states of a run's recorded user file: finds the file, checks that its sha256 is the
 * recorded one, and returns a reader of its cases — or why its states are not at hand.
 *
 * @param record The run's `spec.question_set` (a user file).
 * @param options Run directory, default lane and the lookup map's size limit.
 * @returns The reader, or the problem (never throws for a missing or changed file).
 * @example
 * ```ts ignore
 * import { openRecordedStates } from "./recorded_states.ts";
 * const states = await openRecordedStates(run.spec.question_set, { runDir, lane: run.spec.workflow });
 * if ("message" in states) console.log(states.message);
 * else console.log((await states.caseOf("T-100001"))?.state);
 * ```
 */
export async function openRecordedStates(
  record: FileQuestionSetRecord,
  options: RecordedStatesOptions = {},
): Promise<RecordedStates | RecordedStatesProblem> {
  const tried = candidates(record.path, options.runDir, options.roots ?? []);
  let found: string | null = null;
  for (const path of tried) {
    if (await isFile(path)) {
      found = path;
      break;
    }
  }
  if (found === null) {
    return {
      kind: "missing",
      path: record.path,
      found: null,
      message: `The question set file ${record.path} is not found (looked for ${
        tried.join(", ")
      }; run from the folder the run was made in)`,
    };
  }
  let sha256: string;
  try {
    sha256 = await fileSha256(found);
  } catch (error) {
    return {
      kind: "unreadable",
      path: record.path,
      found,
      message: `The question set file ${record.path} cannot be read (${(error as Error).message})`,
    };
  }
  if (sha256 !== record.sha256) {
    return {
      kind: "changed",
      path: record.path,
      found,
      message: `The question set file ${record.path} changed since the run (sha256 ${
        sha256.slice(0, 12)
      } now, ${record.sha256.slice(0, 12)} recorded)`,
    };
  }
  return new FileStates(found, record, options);
}

/** The reader over a file whose sha256 matched. */
class FileStates implements RecordedStates {
  readonly path: string;
  readonly record: FileQuestionSetRecord;
  #lane: string;
  #lookupRows: number;
  #set: Promise<QuestionSet> | null = null;
  #map: Promise<Map<string, Case>> | null = null;

  constructor(path: string, record: FileQuestionSetRecord, options: RecordedStatesOptions) {
    this.path = path;
    this.record = record;
    this.#lane = options.lane ?? "default";
    this.#lookupRows = options.lookupRows ?? RECORDED_LOOKUP_ROWS;
  }

  #open(): Promise<QuestionSet> {
    this.#set ??= openQuestionSet({
      dataset: {
        path: this.path,
        id: this.record.id,
        state: this.record.state,
        ...(this.record.lane !== null ? { lane: this.record.lane } : {}),
      },
      questions: this.record.questions,
    }, { lane: this.#lane });
    // A failed open is tried again on the next call, not kept.
    this.#set.catch(() => this.#set = null);
    return this.#set;
  }

  async *cases(): AsyncGenerator<Case> {
    yield* (await this.#open()).cases();
  }

  async caseOf(id: string): Promise<Case | null> {
    if (this.record.rows <= this.#lookupRows) {
      this.#map ??= (async () => {
        const map = new Map<string, Case>();
        for await (const item of this.cases()) map.set(item.id, item);
        return map;
      })();
      this.#map.catch(() => this.#map = null);
      return (await this.#map).get(id) ?? null;
    }
    for await (const item of this.cases()) if (item.id === id) return item;
    return null;
  }

  async matching(text: string): Promise<string[]> {
    const needle = text.toLowerCase();
    const ids: string[] = [];
    for await (const item of this.cases()) {
      if (JSON.stringify(item.state).toLowerCase().includes(needle)) ids.push(item.id);
    }
    return ids;
  }
}

/** Options of {@linkcode withRecordedStates}. */
export interface WithRecordedStatesOptions {
  /**
   * Items whose cases are looked up in one read of the file, for a file above the lookup map's
   * size.
   * @default 5000
   */
  batch?: number | undefined;
}

/**
 * Pairs each item (a decision) with its case from a recorded file, in the items' order, in
 * memory bounded by the batch: a file within the lookup map's size goes through the map; a larger
 * one is read once per batch of items.
 *
 * @param items The items, each naming its case.
 * @param states The recorded file's states.
 * @param options The batch size.
 * @returns Each item with its case (null when the file has no such case).
 */
export async function* withRecordedStates<T extends { case: string }>(
  items: AsyncIterable<T> | Iterable<T>,
  states: RecordedStates,
  options: WithRecordedStatesOptions = {},
): AsyncGenerator<{ item: T; case: Case | null }> {
  if (states.record.rows <= RECORDED_LOOKUP_ROWS) {
    for await (const item of items) yield { item, case: await states.caseOf(item.case) };
    return;
  }
  const size = options.batch ?? 5000;
  let batch: T[] = [];
  const flush = async function* (): AsyncGenerator<{ item: T; case: Case | null }> {
    const wanted = new Set(batch.map((item) => item.case));
    const found = new Map<string, Case>();
    for await (const item of states.cases()) {
      if (wanted.has(item.id)) found.set(item.id, item);
      if (found.size === wanted.size) break;
    }
    for (const item of batch) yield { item, case: found.get(item.case) ?? null };
    batch = [];
  };
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) yield* flush();
  }
  if (batch.length) yield* flush();
}
