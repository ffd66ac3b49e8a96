/**
 * The states the decisions were about. Run records keep decisions, not states, so the view reads
 * each case's state from the vendored dataset — only when the dataset at hand is the revision
 * and split the run used — or, for a run on the user's own question set, from the recorded file
 * while its sha256 still matches `run.json`'s; and searches their JSON text for the explorer's
 * free-text filter.
 *
 * @module
 */
import {
  type Case,
  type FileQuestionSetRecord,
  loadDataset,
  openRecordedStates,
  type RecordedStates,
  type RecordedStatesProblem,
} from "../dataset/mod.ts";
import type { RunSpec } from "../record/mod.ts";

/** Options of the lookups of {@linkcode StateSource}. */
export interface StateLookupOptions {
  /**
   * The run directory (a user file's relative path is also looked for from its parents).
   * @default null
   */
  runDir?: string | null | undefined;
}

interface OpenedFile {
  stamp: string;
  states: Promise<RecordedStates | RecordedStatesProblem>;
}

/** Size and modification time of a file, or "none". */
async function stampOf(path: string | null): Promise<string> {
  if (path === null) return "none";
  return await Deno.stat(path).then((s) => `${s.size}:${s.mtime?.getTime() ?? ""}`, () => "none");
}

/** Options for {@linkcode StateSource}. */
export interface StateSourceOptions {
  /**
   * Folder of the vendored dataset.
   * @default the vendored Typed Decisions (`vendor/typed-decisions/`)
   */
  datasetDir?: string | undefined;
}

interface Split {
  revision: string;
  dataset: string;
  cases: Map<string, Case>;
  /** Lower-cased JSON text of each state, for the free-text filter. */
  text: Map<string, string>;
}

/** Looks cases up by id in the dataset a run used. */
export class StateSource {
  #options: StateSourceOptions;
  #splits = new Map<string, Promise<Split | null>>();
  #files = new Map<string, OpenedFile>();

  /**
   * A source over the vendored dataset (loaded on first use, once per split).
   *
   * @param options The dataset folder.
   */
  constructor(options: StateSourceOptions = {}) {
    this.#options = options;
  }

  #split(spec: RunSpec): Promise<Split | null> {
    const name = spec.split === "train" ? "train" : "test";
    let split = this.#splits.get(name);
    if (!split) {
      const dir = this.#options.datasetDir;
      split = loadDataset({ split: name, ...(dir !== undefined ? { dir } : {}) }).then(
        (d) => ({
          revision: d.info.revision,
          dataset: d.info.dataset,
          cases: new Map(d.cases.map((c) => [c.id, c])),
          text: new Map(d.cases.map((c) => [c.id, JSON.stringify(c.state).toLowerCase()])),
        }),
        () => null, // a damaged dataset only costs the view its states
      );
      this.#splits.set(name, split);
    }
    return split.then((s) =>
      s && s.revision === spec.revision && s.dataset === spec.dataset ? s : null
    );
  }

  /** A user file's states, opened once and again only when the file's size or time change. */
  async #file(
    spec: RunSpec,
    set: FileQuestionSetRecord,
    options: StateLookupOptions,
  ): Promise<RecordedStates | RecordedStatesProblem> {
    const key = `${options.runDir ?? ""}\u0000${set.path}\u0000${set.sha256}`;
    const cached = this.#files.get(key);
    if (cached) {
      const states = await cached.states;
      const found = "message" in states ? states.found : states.path;
      if (await stampOf(found) === cached.stamp) return states;
    }
    const states = openRecordedStates(set, { runDir: options.runDir, lane: spec.workflow });
    const opened = await states;
    const found = "message" in opened ? opened.found : opened.path;
    this.#files.set(key, { stamp: await stampOf(found), states });
    return opened;
  }

  /**
   * Why a run's states are not at hand, as the start of a sentence (naming the user file when it
   * changed or is missing), or null when they are.
   *
   * @param spec The run's spec.
   * @param options The run directory.
   * @returns The sentence, or null.
   */
  async problemOf(spec: RunSpec, options: StateLookupOptions = {}): Promise<string | null> {
    const set = spec.question_set;
    if (set?.kind === "file") {
      const states = await this.#file(spec, set, options);
      return "message" in states ? states.message : null;
    }
    return await this.#split(spec) === null
      ? "The run used a dataset revision or split that is not the vendored one"
      : null;
  }

  /**
   * The case a decision was about.
   *
   * @param spec The run's spec (dataset, revision, split, question set).
   * @param caseId The case id.
   * @param options The run directory.
   * @returns The case, or null when the dataset at hand is not the run's or lacks the case.
   */
  async caseOf(
    spec: RunSpec,
    caseId: string,
    options: StateLookupOptions = {},
  ): Promise<Case | null> {
    const set = spec.question_set;
    if (set?.kind === "file") {
      const states = await this.#file(spec, set, options);
      return "message" in states ? null : await states.caseOf(caseId).catch(() => null);
    }
    return (await this.#split(spec))?.cases.get(caseId) ?? null;
  }

  /**
   * The ids of the cases whose state's JSON text contains a text (case-insensitive).
   *
   * @param spec The run's spec.
   * @param text The text to find.
   * @param options The run directory.
   * @returns The ids, or null when the run's states are not at hand.
   */
  async casesMatching(
    spec: RunSpec,
    text: string,
    options: StateLookupOptions = {},
  ): Promise<string[] | null> {
    const set = spec.question_set;
    if (set?.kind === "file") {
      const states = await this.#file(spec, set, options);
      return "message" in states ? null : await states.matching(text).catch(() => null);
    }
    const split = await this.#split(spec);
    if (!split) return null;
    const needle = text.toLowerCase();
    const ids: string[] = [];
    for (const [id, state] of split.text) if (state.includes(needle)) ids.push(id);
    return ids;
  }
}
