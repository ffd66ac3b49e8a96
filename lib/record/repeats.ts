/**
 * `repeats.jsonl`: the answers of the stability passes (`--repeat`), one line per decision per
 * pass, appended as each case is answered. The official scores never read it.
 *
 * @module
 */
import { readJsonLines } from "./recorder.ts";
import { join } from "node:path";
import type { DecisionRecord } from "./schemas.ts";

/** File name of the stability passes' answers inside a run directory. */
export const REPEATS_FILE = "repeats.jsonl";

/** One decision of one stability pass: a scored decision plus the pass it belongs to. */
export interface RepeatRecord extends DecisionRecord {
  /** Requests in flight during the pass. */
  parallel: number;
  /** Pass number at that concurrency, 1 first; the official pass is pass 1 at the run's own. */
  pass: number;
}

/** Appends stability-pass decisions to `repeats.jsonl`, one write per case. */
export class RepeatsWriter {
  /** Path of `repeats.jsonl`. */
  readonly path: string;
  #file: Deno.FsFile | null = null;
  readonly #encoder = new TextEncoder();

  /**
   * A writer for a run directory.
   *
   * @param dir The run directory (it exists: the run wrote its decisions there).
   */
  constructor(dir: string) {
    this.path = join(dir, REPEATS_FILE);
  }

  /** Creates (or empties) `repeats.jsonl`: a resumed run asks its repeats again. */
  async open(): Promise<void> {
    this.#file = await Deno.open(this.path, { write: true, create: true, truncate: true });
  }

  /**
   * Appends one case's decisions of one pass.
   *
   * @param records The case's decisions.
   * @throws {Error} When the writer is not open or the write fails (the message names the file).
   */
  append(records: readonly RepeatRecord[]): void {
    if (!this.#file) throw new TypeError("Cannot append repeats: the writer is not open");
    const bytes = this.#encoder.encode(records.map((r) => JSON.stringify(r)).join("\n") + "\n");
    let written = 0;
    try {
      while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Cannot write "${this.path}": ${reason}; free disk space and run again`);
    }
  }

  /** Closes the file. */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }
}

/**
 * Reads `repeats.jsonl` (skipping a torn last line).
 *
 * @param dir The run directory.
 * @returns The records, or [] when the run has none.
 */
export async function readRepeats(dir: string): Promise<RepeatRecord[]> {
  return await readJsonLines<RepeatRecord>(join(dir, REPEATS_FILE));
}
