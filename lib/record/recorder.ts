/**
 * The run directory, written as decisions are answered: `decisions.jsonl` appended per case (in
 * the order cases are answered, never rewritten), `run.json` rewritten atomically.
 *
 * @module
 */
import { join } from "node:path";
import { writeAtomic } from "../bytes.ts";
import { readDecisionLines, readJsonLineStream } from "./lines.ts";
import { resumeCommand } from "./resume_command.ts";
import type { DecisionRecord, RunJson } from "./schemas.ts";
import type { AnsweredCase, RunSink } from "./sink.ts";

/**
 * Writes one run directory; as a {@linkcode RunSink}, the run's records: `run.json` at the start
 * and the end, and each answered case's decisions appended to `decisions.jsonl` in one write as it
 * is answered (a kept case of a resumed run is in the file already). The file is only ever
 * appended to: its lines are in the order cases were answered, and a crash loses nothing answered.
 */
export class RunRecorder implements RunSink {
  /** The run directory. */
  readonly dir: string;
  #file: Deno.FsFile | null = null;
  #encoder = new TextEncoder();
  #buffer = new Uint8Array(1 << 16);

  /**
   * A recorder for one run directory; nothing is written until `open`.
   *
   * @param dir The run directory (created by `open`).
   */
  constructor(dir: string) {
    this.dir = dir;
  }

  /** Path of `decisions.jsonl`. */
  get decisionsPath(): string {
    return join(this.dir, "decisions.jsonl");
  }

  /** Path of `run.json`. */
  get runJsonPath(): string {
    return join(this.dir, "run.json");
  }

  /**
   * Creates the directory and opens `decisions.jsonl` for appending.
   *
   * @throws {Deno.errors.PermissionDenied} When the directory cannot be written.
   */
  async open(): Promise<void> {
    await Deno.mkdir(this.dir, { recursive: true });
    this.#file = await Deno.open(this.decisionsPath, { append: true, create: true });
  }

  /**
   * Opens `decisions.jsonl` and writes `run.json` as the run starts.
   *
   * @param run The run record (status `running`).
   */
  async start(run: RunJson): Promise<void> {
    await this.open();
    await this.writeRun(run);
  }

  /**
   * Appends a case asked by this invocation (see {@linkcode RunRecorder.append}); a kept one is
   * already in the file.
   *
   * @param answered The case and its decisions.
   */
  async case(answered: AnsweredCase): Promise<void> {
    if (answered.asked !== null) await this.append(answered.records);
  }

  /**
   * Writes the final `run.json` and closes `decisions.jsonl`.
   *
   * @param run The final run record.
   */
  async finish(run: RunJson): Promise<void> {
    this.close();
    await this.writeRun(run);
  }

  /**
   * Appends one case's decisions in one write straight to the file (no buffer in the process), so
   * a crash or Ctrl+C right after loses nothing answered; a torn last line is skipped on reading.
   *
   * @param records The case's decisions (one case).
   * @returns Resolves once they are written; rejects when the recorder is not open or the write
   *   fails (a full disk).
   */
  append(records: readonly DecisionRecord[]): Promise<void> {
    try {
      if (!this.#file) throw new TypeError("Cannot append decisions: the recorder is not open");
      let text = "";
      for (const r of records) text += JSON.stringify(r) + "\n";
      // Encoded into one reused buffer (UTF-8 takes at most 3 bytes per UTF-16 unit).
      if (this.#buffer.length < text.length * 3) this.#buffer = new Uint8Array(text.length * 3);
      const { written: size } = this.#encoder.encodeInto(text, this.#buffer);
      const bytes = this.#buffer.subarray(0, size);
      // One synchronous write per case: cheaper than an async op, and the case is on disk
      // before the next one is scored.
      let written = 0;
      try {
        while (written < bytes.length) written += this.#file.writeSync(bytes.subarray(written));
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `Cannot write "${this.decisionsPath}": ${reason}; every case answered before this one ` +
            `is kept — free disk space, then finish the run with ${resumeCommand(this.dir)}`,
        );
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Writes `run.json` atomically (temp file, then rename).
   *
   * @param run The run record.
   */
  async writeRun(run: RunJson): Promise<void> {
    await writeAtomic(this.runJsonPath, JSON.stringify(run, null, 2) + "\n");
  }

  /** Closes the decisions file. */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }
}

export { writeAtomic };

/**
 * Reads `decisions.jsonl` into an array (streamed line by line, a torn last line skipped), in file
 * order: the order cases were answered; a decision without gold has `correct` null, whatever
 * version wrote it. A caller that can reads `readDecisionLines` instead of holding the array.
 *
 * @param path Path of the file.
 * @returns The records, or [] when the file does not exist.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function readDecisions(path: string): Promise<DecisionRecord[]> {
  const out: DecisionRecord[] = [];
  for await (const { record } of readDecisionLines(path)) out.push(record);
  return out;
}

/**
 * Reads a JSONL file written append-as-you-go into an array, streamed line by line: blank lines
 * and a line that does not parse (a torn final line from a crash) skipped. No schema check.
 *
 * @param path Path of the file.
 * @returns The values, or [] when the file does not exist.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function readJsonLines<T>(path: string): Promise<T[]> {
  const out: T[] = [];
  for await (const { value } of readJsonLineStream<T>(path)) out.push(value);
  return out;
}
