/**
 * Private: a finished run's entry in the SQLite index, written in one go at the end of the run.
 * The index is secondary to the run directory: a failure to write it is returned as a message for
 * the caller to report, and changes nothing else.
 *
 * @module
 */
import { type DecisionRecord, indexRun, openIndex, type RunJson } from "../record/mod.ts";

/** A finished run as the index takes it. */
export interface FinishedRun {
  /** The final run record. */
  run: RunJson;
  /** Every decision of the run. */
  records: readonly DecisionRecord[];
  /** The run directory, recorded with the run. */
  dir: string;
}

/**
 * Adds a finished run and its decisions to the index at `path` (replacing an earlier entry of the
 * same run), then closes the index.
 *
 * @param path The index file.
 * @param finished The run, its decisions and its directory.
 * @returns Why the index could not be written, or null when it was.
 */
export function indexFinishedRun(path: string, finished: FinishedRun): string | null {
  const { run, records, dir } = finished;
  let index;
  try {
    index = openIndex(path);
    indexRun(index, run, records, { dir });
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    try {
      index?.close();
    } catch {
      // Already closed, or the file is gone: nothing left to release.
    }
  }
}
