/**
 * The run directory, written as decisions are answered: `decisions.jsonl` appended per case,
 * `run.json` rewritten atomically.
 *
 * @module
 */
import { join } from "node:path";
import { resumeCommand } from "./resume_command.ts";
import type { DecisionRecord, RunJson } from "./schemas.ts";

/** Writes one run directory. */
export class RunRecorder {
  /** The run directory. */
  readonly dir: string;
  #file: Deno.FsFile | null = null;
  #encoder = new TextEncoder();
  #buffer = new Uint8Array(1 << 16);
  // The JSON line written for each record, so the final rewrite does not serialise it again.
  #lines = new WeakMap<DecisionRecord, string>();

  #line(record: DecisionRecord): string {
    let line = this.#lines.get(record);
    if (line === undefined) {
      line = JSON.stringify(record);
      this.#lines.set(record, line);
    }
    return line;
  }

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
   * Appends one case's decisions in one write straight to the file (no buffer in the process), so
   * a crash or Ctrl+C right after loses nothing answered; a torn last line is skipped on reading.
   *
   * @param records The case's decisions.
   * @returns Resolves once the bytes are written; rejects when the recorder is not open or the
   *   write fails (a full disk).
   */
  append(records: readonly DecisionRecord[]): Promise<void> {
    try {
      if (!this.#file) throw new TypeError("Cannot append decisions: the recorder is not open");
      let text = "";
      for (const r of records) text += this.#line(r) + "\n";
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

  /**
   * Rewrites `decisions.jsonl` in a stable order (atomically), for a deterministic final file.
   *
   * @param records Every decision of the run, in the order to keep.
   */
  async rewriteDecisions(records: readonly DecisionRecord[]): Promise<void> {
    this.close();
    await writeAtomic(
      this.decisionsPath,
      records.map((r) => this.#line(r)).join("\n") + (records.length ? "\n" : ""),
    );
  }

  /** Closes the decisions file. */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }
}

/**
 * Writes a file atomically: a temp file beside it, then rename. On failure the temp file is
 * removed and the error rethrown.
 *
 * @param path Target path.
 * @param text Content.
 * @throws {Deno.errors.NotFound} When the folder does not exist (and other file-system errors).
 */
export async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    await Deno.writeTextFile(tmp, text);
    await Deno.rename(tmp, path);
  } catch (error) {
    // No stray temp file when the write or the rename fails (a folder at `path`, a full disk).
    await Deno.remove(tmp).catch(() => {});
    throw error;
  }
}

/**
 * Reads `decisions.jsonl` (skipping a torn last line).
 *
 * @param path Path of the file.
 * @returns The records, or [] when the file does not exist.
 */
export async function readDecisions(path: string): Promise<DecisionRecord[]> {
  // A torn final line from a crash is skipped: the case is re-asked on resume.
  return await readJsonLines<DecisionRecord>(path);
}

/**
 * Reads a JSONL file written append-as-you-go: one JSON value per line, blank lines and a line
 * that does not parse (a torn final line from a crash) skipped. No schema check.
 *
 * @param path Path of the file.
 * @returns The values, or [] when the file does not exist.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function readJsonLines<T>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const out: T[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a torn final line
    }
  }
  return out;
}
