/**
 * The states the decisions were about. Run records keep decisions, not states, so the view reads
 * each case's state from the vendored dataset — only when the dataset at hand is the revision
 * and split the run used — and searches their JSON text for the explorer's free-text filter.
 *
 * @module
 */
import { type Case, loadDataset } from "../dataset/mod.ts";
import type { RunSpec } from "../record/mod.ts";

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

  /**
   * The case a decision was about.
   *
   * @param spec The run's spec (dataset, revision, split).
   * @param caseId The case id.
   * @returns The case, or null when the dataset at hand is not the run's or lacks the case.
   */
  async caseOf(spec: RunSpec, caseId: string): Promise<Case | null> {
    return (await this.#split(spec))?.cases.get(caseId) ?? null;
  }

  /**
   * The ids of the cases whose state's JSON text contains a text (case-insensitive).
   *
   * @param spec The run's spec.
   * @param text The text to find.
   * @returns The ids, or null when the run's states are not at hand.
   */
  async casesMatching(spec: RunSpec, text: string): Promise<string[] | null> {
    const split = await this.#split(spec);
    if (!split) return null;
    const needle = text.toLowerCase();
    const ids: string[] = [];
    for (const [id, state] of split.text) if (state.includes(needle)) ids.push(id);
    return ids;
  }
}
