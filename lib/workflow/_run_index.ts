/**
 * Private: a run's entry in the SQLite index, written in one go at the end of the run or in two
 * steps — its decisions while the run waits for its report worker, its final record at the end.
 * The index is secondary to the run directory: a failure to write it is kept as a message for the
 * caller to report, and changes nothing else.
 *
 * @module
 */
import {
  type DecisionRecord,
  indexRun,
  openIndex,
  type RunIndex,
  type RunJson,
  updateIndexedRun,
} from "../record/mod.ts";

/** One run's writes to the index (nothing when the path is null). */
export class RunIndexWrite implements Disposable {
  #index: RunIndex | null = null;
  #decisions = false;
  /** Why the index could not be written, or null. */
  error: string | null = null;

  /**
   * Prepares the writes; nothing is opened yet.
   *
   * @param path The index file, or null for none.
   * @param dir The run directory, recorded with the run.
   */
  constructor(readonly path: string | null, readonly dir: string) {}

  /**
   * Indexes the run as it stands (its record still says "running") with all its decisions, so the
   * end of the run only replaces the run's own row. A run that dies before then leaves the index
   * agreeing with its directory. A failure here is retried whole at the end.
   *
   * @param run The run record as written so far.
   * @param records Every decision of the run.
   */
  decisions(run: RunJson, records: readonly DecisionRecord[]): void {
    if (this.path === null) return;
    try {
      this.#index ??= openIndex(this.path);
      indexRun(this.#index, run, records, { dir: this.dir });
      this.#decisions = true;
    } catch {
      this.close();
    }
  }

  /**
   * Writes the final run record (and its decisions, unless {@linkcode RunIndexWrite.decisions}
   * wrote them), then closes the index.
   *
   * @param run The final run record.
   * @param records Every decision of the run.
   */
  finish(run: RunJson, records: readonly DecisionRecord[]): void {
    if (this.path === null) return;
    try {
      this.#index ??= openIndex(this.path);
      if (this.#decisions) updateIndexedRun(this.#index, run, records.length, { dir: this.dir });
      else indexRun(this.#index, run, records, { dir: this.dir });
    } catch (error) {
      this.error = (error as Error).message;
    } finally {
      this.close();
    }
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

  /** Same as {@linkcode RunIndexWrite.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
