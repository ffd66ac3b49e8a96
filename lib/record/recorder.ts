/**
 * The run directory, written as decisions are answered: `decisions.jsonl` appended per case,
 * `run.json` rewritten atomically.
 *
 * @module
 */
import { join } from "node:path";
import { writeAtomic } from "../bytes.ts";
import { resumeCommand } from "./resume_command.ts";
import type { DecisionRecord, RunJson } from "./schemas.ts";

/** One case's decisions as `append` wrote them, and where their bytes lie in the file. */
interface Chunk {
  records: readonly DecisionRecord[];
  offset: number;
  length: number;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Writes one run directory. */
export class RunRecorder {
  /** The run directory. */
  readonly dir: string;
  #file: Deno.FsFile | null = null;
  #encoder = new TextEncoder();
  #buffer = new Uint8Array(1 << 16);
  // Where each case appended since `open` lies in the file, so the final rewrite copies its bytes
  // instead of serialising its records again or keeping their text in memory.
  #chunks = new Map<string, Chunk>();
  // The file's size; null when unknown (not open, or a write failed part-way).
  #size: number | null = null;

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
    this.#size = (await this.#file.stat()).size;
    this.#chunks.clear();
  }

  /**
   * Appends one case's decisions in one write straight to the file (no buffer in the process), so
   * a crash or Ctrl+C right after loses nothing answered; a torn last line is skipped on reading.
   * Neither the list nor its records may change afterwards:
   * {@linkcode RunRecorder.rewriteDecisions} copies the bytes written for them.
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
        const first = records[0];
        if (this.#size !== null && first !== undefined) {
          this.#chunks.set(first.case, { records, offset: this.#size, length: size });
          this.#size += size;
        }
      } catch (error) {
        this.#size = null; // a torn write: the offsets after it are unknown
        this.#chunks.clear();
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
   * Rewrites `decisions.jsonl` in a stable order (atomically), for a deterministic final file. A
   * case's decisions appended since `open`, given again as the same records in the same order,
   * are copied as written; the others are serialised (the same bytes).
   *
   * @param records Every decision of the run, in the order to keep.
   */
  async rewriteDecisions(records: readonly DecisionRecord[]): Promise<void> {
    this.close();
    const chunks = this.#chunks;
    this.#chunks = new Map();
    this.#size = null;
    const appended = chunks.size ? await Deno.readFile(this.decisionsPath) : new Uint8Array();
    const parts: Uint8Array[] = [];
    let text = "";
    for (let i = 0; i < records.length;) {
      const record = records[i] as DecisionRecord;
      const chunk = chunks.get(record.case);
      // The very records appended as one case, in the same order: their bytes as written.
      if (
        chunk !== undefined && chunk.offset + chunk.length <= appended.length &&
        chunk.records.every((r, k) => records[i + k] === r)
      ) {
        if (text) parts.push(this.#encoder.encode(text));
        text = "";
        parts.push(appended.subarray(chunk.offset, chunk.offset + chunk.length));
        i += chunk.records.length;
      } else {
        text += JSON.stringify(record) + "\n";
        i++;
      }
    }
    if (text) parts.push(this.#encoder.encode(text));
    await writeAtomic(this.decisionsPath, concat(parts));
  }

  /** Closes the decisions file. */
  close(): void {
    this.#file?.close();
    this.#file = null;
  }
}

export { writeAtomic };

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
