/**
 * Private: the byte and text streams a question set file is read through. The file is opened only
 * when it is a regular file (a FIFO or a device would block or never end), its bytes are hashed as
 * they pass, and text is cut into lines that carry their line number. Nothing holds the whole file.
 *
 * @module
 */
import type { Hash } from "node:crypto";

/** The longest line (JSONL) or field (CSV) read, in UTF-16 code units: 16 Mi. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** Bytes read from the file at once. */
const CHUNK_BYTES = 256 * 1024;

/** One line of text and its number (1 is the first line). */
export interface TextLine {
  /** The line number. */
  line: number;
  /** The text, without its line ending (LF or CRLF). */
  text: string;
}

/** A line is longer than {@linkcode MAX_LINE_CHARS}. */
export class LongLineError extends RangeError {
  /** The line it starts on. */
  readonly line: number;

  /**
   * Creates the error.
   *
   * @param line The line the long text starts on.
   * @param what What is too long (`"the line"`, `"a field"`).
   * @param max The limit it passed, in characters.
   */
  constructor(line: number, what: string, max: number = MAX_LINE_CHARS) {
    const limit = max % (1024 * 1024) === 0 ? `${max / 1024 / 1024} Mi` : String(max);
    super(`${what} is longer than ${limit} characters (a missing line break or closing quote?)`);
    this.name = "LongLineError";
    this.line = line;
  }
}

/** A question set path names something other than a regular file. */
export class NotRegularFileError extends TypeError {
  /**
   * Creates the error.
   *
   * @param kind What the path names, e.g. `"a FIFO (named pipe)"`.
   */
  constructor(kind: string) {
    super(`is ${kind}, not a regular file; name a .jsonl, .csv or .parquet file`);
    this.name = "NotRegularFileError";
  }
}

/**
 * Checks that a path names a regular file (after following links) before it is opened.
 *
 * @param path The path.
 * @returns The file's size in bytes.
 * @throws {Deno.errors.NotFound} When nothing is there.
 * @throws {NotRegularFileError} When it is a folder, a FIFO, a socket or a device.
 */
export async function regularFileSize(path: string): Promise<number> {
  const info = await Deno.stat(path);
  if (!info.isFile) {
    const kind = info.isDirectory
      ? "a folder"
      : info.isFifo
      ? "a FIFO (named pipe)"
      : info.isCharDevice || info.isBlockDevice
      ? "a device"
      : info.isSocket
      ? "a socket"
      : "something else";
    throw new NotRegularFileError(kind);
  }
  return info.size;
}

/** A file's bytes as they are read, and their running sha256 and count. */
export class HashedBytes {
  /** The bytes, in chunks. */
  readonly readable: ReadableStream<Uint8Array>;
  readonly #hash: Hash;
  #bytes = 0;
  #done = false;

  /**
   * Opens the file for one sequential read.
   *
   * @param file The open file (closed when the stream ends or is cancelled).
   * @param hash A fresh sha256 hash (`createHash("sha256")` of `node:crypto`, which the caller
   *   loads when it reads a file: a run on the vendored dataset never loads it).
   */
  constructor(file: Deno.FsFile, hash: Hash) {
    this.#hash = hash;
    this.readable = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const buffer = new Uint8Array(CHUNK_BYTES);
        const n = await file.read(buffer);
        if (n === null) {
          this.#done = true;
          file.close();
          controller.close();
          return;
        }
        const chunk = buffer.subarray(0, n);
        this.#hash.update(chunk);
        this.#bytes += n;
        controller.enqueue(chunk);
      },
      cancel: () => file.close(),
    }, { highWaterMark: 0 });
  }

  /** Bytes read so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The sha256 of every byte, once the stream has ended.
   *
   * @returns 64 hex digits.
   * @throws {Error} When the stream has not been read to its end.
   */
  sha256(): string {
    if (!this.#done) throw new Error("Cannot hash the file: it was not read to its end");
    return this.#hash.digest("hex");
  }
}

/**
 * Cuts text into lines, each with its number; emits the lines a chunk completes as one batch (a
 * run reads a million lines without a million stream reads). LF and CRLF end a line; a last line
 * without an ending is a line.
 */
export class LineStream extends TransformStream<string, TextLine[]> {
  /**
   * Creates the stream.
   *
   * @param maxChars The longest line taken; a longer one errors the stream with a
   *   {@linkcode LongLineError}. Defaults to {@linkcode MAX_LINE_CHARS}.
   */
  constructor(maxChars: number = MAX_LINE_CHARS) {
    let rest = "";
    let line = 0;
    super({
      transform(chunk, controller) {
        const batch: TextLine[] = [];
        let start = 0;
        for (;;) {
          const end = chunk.indexOf("\n", start);
          if (end < 0) break;
          let text = chunk.slice(start, end);
          if (rest !== "") {
            text = rest + text;
            rest = "";
          }
          if (text.endsWith("\r")) text = text.slice(0, -1);
          batch.push({ line: ++line, text });
          start = end + 1;
        }
        rest += chunk.slice(start);
        if (rest.length > maxChars) throw new LongLineError(line + 1, "the line", maxChars);
        if (batch.length) controller.enqueue(batch);
      },
      flush(controller) {
        if (rest !== "") controller.enqueue([{ line: line + 1, text: rest }]);
      },
    });
  }
}

/**
 * Finds the line holding the first byte sequence that is not UTF-8 (read again, line by line,
 * after a decoder refused the file).
 *
 * @param path The file.
 * @returns The line number, or null when every line decodes.
 */
export async function invalidUtf8Line(path: string): Promise<number | null> {
  using file = await Deno.open(path);
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const buffer = new Uint8Array(CHUNK_BYTES);
  let line = 1;
  // Bytes of the current line not yet decoded; a line decodes on its own since LF ends no sequence.
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    let start = 0;
    for (let i = 0; i < n; i++) {
      if (buffer[i] !== 0x0a) continue;
      try {
        decoder.decode(buffer.subarray(start, i), { stream: true });
        decoder.decode();
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
    try {
      decoder.decode(buffer.subarray(start, n), { stream: true });
    } catch {
      return line;
    }
  }
  try {
    decoder.decode();
  } catch {
    return line;
  }
  return null;
}
