/**
 * Private: the run's sink that writes it into the SQLite index as it goes — its row when it
 * starts, its decisions in batches as cases are answered, its final row at the end. The index is
 * secondary to the run directory: a failure to write it is kept as a message for the caller to
 * report, stops the index's writes, and changes nothing else.
 *
 * @module
 */
import {
  addIndexedDecisions,
  type AnsweredCase,
  beginIndexedRun,
  type DecisionRecord,
  openIndex,
  type RunIndex,
  type RunJson,
  type RunSink,
  updateIndexedRun,
} from "../record/mod.ts";

/** Decisions written to the index per transaction. */
export const INDEX_BATCH = 1000;

/** One run's writes to the index (nothing when the path is null). */
export class IndexSink implements RunSink {
  #index: RunIndex | null = null;
  #runId = "";
  #batch: DecisionRecord[] = [];
  #count = 0;
  #failed = false;
  /** Why the index could not be written, or null. */
  error: string | null = null;

  /**
   * Prepares the writes; nothing is opened before `start`.
   *
   * @param path The index file, or null for none.
   * @param dir The run directory, recorded with the run.
   * @param batch Decisions per transaction. @default INDEX_BATCH
   */
  constructor(
    readonly path: string | null,
    readonly dir: string,
    readonly batch: number = INDEX_BATCH,
  ) {}

  #try(write: () => void): void {
    if (this.path === null || this.#failed) return;
    try {
      write();
    } catch (error) {
      this.#failed = true;
      this.error = (error as Error).message;
      this.close();
    }
  }

  /**
   * Opens the index and writes the run's row as it stands (still `running`), replacing any
   * decision it held for the run: a run that dies leaves the index agreeing with its directory.
   *
   * @param run The run record as first written.
   */
  start(run: RunJson): void {
    this.#runId = run.id;
    this.#try(() => {
      this.#index ??= openIndex(this.path as string);
      beginIndexedRun(this.#index, run, { dir: this.dir });
    });
  }

  /**
   * Adds a case's decisions; every `batch` decisions are written in one transaction.
   *
   * @param answered The case and its decisions.
   */
  case(answered: AnsweredCase): void {
    if (this.path === null || this.#failed) return;
    this.#count += answered.records.length;
    for (const r of answered.records) this.#batch.push(r);
    if (this.#batch.length >= this.batch) this.#flush();
  }

  #flush(): void {
    const batch = this.#batch;
    this.#batch = [];
    if (batch.length) {
      this.#try(() => addIndexedDecisions(this.#index as RunIndex, this.#runId, batch));
    }
  }

  /**
   * Writes the decisions left and the final run row, then closes the index.
   *
   * @param run The final run record.
   */
  finish(run: RunJson): void {
    this.#flush();
    this.#try(() => updateIndexedRun(this.#index as RunIndex, run, this.#count, { dir: this.dir }));
    this.close();
  }

  /** Removes the run's row and decisions from the index (a run that left nothing), then closes it. */
  discard(): void {
    this.#batch = [];
    if (this.path === null || this.#runId === "") return;
    try {
      const index = this.#index ?? openIndex(this.path);
      this.#index = index;
      index.db.prepare("DELETE FROM decisions WHERE run_id = ?").run(this.#runId);
      index.db.prepare("DELETE FROM runs WHERE id = ?").run(this.#runId);
    } catch {
      // The row stays; the view lists a run whose directory is gone, as after a manual removal.
    }
    this.close();
  }

  /** Closes the index if it is open. */
  close(): void {
    try {
      this.#index?.close();
    } catch {
      // Already closed, or the file is gone: nothing left to release.
    }
    this.#index = null;
  }
}
