/**
 * Private: reads a user question set file (JSONL, CSV or Parquet) as a stream of plain rows, each
 * with the line (or Parquet row) it came from, hashing the bytes as they pass. JSONL is read by
 * lines, CSV by records, Parquet by row groups; the file is never held whole. Format problems (not
 * JSON, an unclosed quote, a ragged row, a file that is not Parquet) are reported as they are met,
 * not thrown one by one.
 *
 * @module
 */
import { CsvStream, CsvSyntaxError } from "./csv.ts";
import {
  HashedBytes,
  invalidUtf8Line,
  LineStream,
  LongLineError,
  regularFileSize,
} from "./_text_stream.ts";
import { cut } from "./_shown.ts";
import type { QuestionSetFormat } from "./schemas.ts";

/** One row: its fields (only those present) and where it is. */
export interface RawRow {
  /** CSV: the line the record starts on; JSONL: the line; Parquet: the row number, 1 first. */
  line: number;
  /** Field name → value. */
  values: Record<string, unknown>;
}

/** What is known of a file once it has been read to its end. */
export interface FileFacts {
  /** Its format. */
  format: QuestionSetFormat;
  /** sha256 of the bytes ("" when the file could not be read to its end). */
  sha256: string;
  /** Size in bytes. */
  bytes: number;
}

/** Reports a problem at a line (null: the whole file) and field. */
export type Report = (line: number | null, field: string | null, message: string) => void;

/** Options of {@linkcode readRows}. */
export interface ReadRowsOptions {
  /** Receives each format problem as it is met. */
  problem: Report;
  /**
   * Receives the header's columns (CSV, Parquet) before any row; JSONL has none.
   * @default ignored
   */
  columns?: (columns: string[]) => void;
}

/** Values nested deeper than this are refused: nothing on a run's path recurses further. */
export const MAX_DEPTH = 256;

/**
 * The format of a file, by its extension.
 *
 * @param path The file.
 * @returns Its format, or null for another extension.
 */
export function formatOf(path: string): QuestionSetFormat | null {
  const match = /\.(jsonl|csv|parquet)$/i.exec(path);
  return match ? (match[1] as string).toLowerCase() as QuestionSetFormat : null;
}

/**
 * A text cell (CSV, or a Parquet string) as a value: a JSON object or array when it parses as one,
 * else the text itself.
 *
 * @param text The cell.
 * @returns The value.
 */
export function cellValue(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return text;
  try {
    const value = JSON.parse(trimmed);
    return typeof value === "object" && value !== null ? value : text;
  } catch {
    return text;
  }
}

/**
 * Reads a question set file as batches of rows, in file order. The generator's return value holds
 * the file's sha256 and size (taken from the bytes read, so they are the bytes the rows came from).
 *
 * @param path The file to read.
 * @param options Where problems and the header go.
 * @returns The rows, batch by batch; then the file's facts.
 * @throws {TypeError} When the name has another extension, or the path is not a regular file.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 */
export async function* readRows(
  path: string,
  options: ReadRowsOptions,
): AsyncGenerator<RawRow[], FileFacts> {
  const format = formatOf(path);
  if (format === null) throw new TypeError("is not .jsonl, .csv or .parquet");
  const size = await regularFileSize(path);
  if (format === "parquet") return yield* readParquet(path, size, options);
  // node:crypto takes ~50 ms to load: only a user file's reading loads it.
  const { createHash } = await import("node:crypto");
  const file = await Deno.open(path);
  const bytes = new HashedBytes(file, createHash("sha256"));
  const text = bytes.readable.pipeThrough(new TextDecoderStream("utf-8", { fatal: true }));
  const facts = (): FileFacts => ({ format, sha256: bytes.sha256(), bytes: bytes.bytes });
  try {
    if (format === "jsonl") {
      for await (const lines of text.pipeThrough(new LineStream())) {
        const rows: RawRow[] = [];
        for (const { line, text } of lines) {
          const row = jsonlRow(line, text, options.problem);
          if (row !== null) rows.push(row);
        }
        if (rows.length) yield rows;
      }
      return facts();
    }
    yield* csvRows(text.pipeThrough(new CsvStream()), options);
    return facts();
  } catch (error) {
    if (error instanceof LongLineError || error instanceof CsvSyntaxError) {
      options.problem(error.line, null, error.message);
    } else if (error instanceof TypeError) {
      // The decoder's refusal: find the line it is on.
      const line = await invalidUtf8Line(path);
      if (line === null) throw error;
      options.problem(line, null, "is not UTF-8 text; save it as UTF-8");
    } else throw error;
    return { format, sha256: "", bytes: bytes.bytes };
  }
}

function jsonlRow(line: number, text: string, problem: Report): RawRow | null {
  if (text.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    problem(line, null, `is not valid JSON (${cut((error as Error).message, 120)})`);
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problem(line, null, "is not a JSON object; write one object per line");
    return null;
  }
  return { line, values: value as Record<string, unknown> };
}

/** The delimiter a one-column CSV header seems to use instead of commas, if any. */
function otherDelimiter(header: readonly string[]): string | null {
  if (header.length !== 1) return null;
  for (const candidate of [";", "\t", "|"]) {
    if ((header[0] as string).includes(candidate)) return candidate;
  }
  return null;
}

/**
 * A hint for a CSV whose header is one column holding another delimiter.
 *
 * @param header The header's columns.
 * @returns `"; the file seems to use ';' as delimiter; CSV must be comma-separated"`, or "".
 */
export function delimiterHint(header: readonly string[]): string {
  const other = otherDelimiter(header);
  if (other === null) return "";
  const name = other === "\t" ? "tab" : `'${other}'`;
  return `; the file seems to use ${name} as delimiter; CSV must be comma-separated`;
}

async function* csvRows(
  records: ReadableStream<{ line: number; fields: string[] }[]>,
  options: ReadRowsOptions,
): AsyncGenerator<RawRow[], void> {
  const { problem } = options;
  let columns: string[] | null = null;
  let hint = "";
  for await (const batch of records) {
    const rows: RawRow[] = [];
    for (const record of batch) {
      if (columns === null) {
        columns = record.fields;
        hint = delimiterHint(columns);
        const seen = new Set<string>();
        for (const [i, name] of columns.entries()) {
          if (name.trim() === "") {
            problem(record.line, `column ${i + 1}`, "has no name in the header");
          } else if (seen.has(name)) problem(record.line, cut(name), "appears twice in the header");
          seen.add(name);
        }
        options.columns?.(columns);
        continue;
      }
      const { fields, line } = record;
      if (fields.length < columns.length) {
        problem(
          line,
          cut(columns[fields.length] ?? ""),
          `missing: the row has ${fields.length} fields, the header ${columns.length} (a missing comma, or a line break outside quotes?)`,
        );
        continue;
      }
      if (fields.length > columns.length) {
        problem(
          line,
          `column ${columns.length + 1}`,
          `has no column: the row has ${fields.length} fields, the header ${columns.length}; quote values that contain commas${hint}`,
        );
        continue;
      }
      const values: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) {
        values[columns[i] as string] = cellValue(fields[i] as string);
      }
      rows.push({ line, values });
    }
    if (rows.length) yield rows;
  }
}

/**
 * A Parquet file read by random access (hyparquet's `AsyncBuffer`). hyparquet asks for several
 * slices at once; they share one file position, so each seek-and-read waits for the one before.
 *
 * @param file The open file.
 * @param size Its size in bytes.
 * @returns Its byte length and a `slice(start, end)` that reads those bytes.
 */
export function fileBuffer(
  file: Deno.FsFile,
  size: number,
): { byteLength: number; slice(start: number, end?: number): Promise<ArrayBuffer> } {
  let queue: Promise<unknown> = Promise.resolve();
  const read = async (start: number, stop: number): Promise<ArrayBuffer> => {
    const out = new Uint8Array(Math.max(0, stop - start));
    await file.seek(start, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < out.length) {
      const n = await file.read(out.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    return out.buffer;
  };
  return {
    byteLength: size,
    slice(start: number, end?: number): Promise<ArrayBuffer> {
      const next = queue.then(() => read(start, Math.min(end ?? size, size)));
      queue = next.catch(() => {});
      return next;
    },
  };
}

async function hashFile(path: string): Promise<string> {
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  const buffer = new Uint8Array(256 * 1024);
  for (;;) {
    const n = await file.read(buffer);
    if (n === null) break;
    hash.update(buffer.subarray(0, n));
  }
  return hash.digest("hex");
}

async function* readParquet(
  path: string,
  size: number,
  options: ReadRowsOptions,
): AsyncGenerator<RawRow[], FileFacts> {
  const facts: FileFacts = { format: "parquet", sha256: "", bytes: size };
  // Loaded only for a Parquet question set: a run on the vendored dataset does not load them.
  const { parquetMetadataAsync, parquetReadObjects, parquetSchema } = await import("hyparquet");
  const { compressors } = await import("hyparquet-compressors");
  using file = await Deno.open(path);
  const buffer = fileBuffer(file, size);
  const unreadable = (error: unknown): FileFacts => {
    options.problem(
      null,
      null,
      `cannot be read as Parquet (${
        cut((error as Error).message, 120)
      }); export it again, or use .csv or .jsonl`,
    );
    return facts;
  };
  let metadata;
  try {
    metadata = await parquetMetadataAsync(buffer);
    options.columns?.(parquetSchema(metadata).children.map((child) => child.element.name));
  } catch (error) {
    return unreadable(error);
  }
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let objects: Record<string, unknown>[];
    try {
      // utf8: false keeps unannotated BYTE_ARRAY cells as bytes, refused below, not read as text.
      objects = await parquetReadObjects({
        file: buffer,
        metadata,
        compressors,
        rowStart,
        rowEnd,
        utf8: false,
      });
    } catch (error) {
      return unreadable(error);
    }
    const rows: RawRow[] = [];
    for (const [i, object] of objects.entries()) {
      const line = rowStart + i + 1;
      const values: Record<string, unknown> = {};
      let ok = true;
      for (const [name, value] of Object.entries(object)) {
        const converted = jsonValue(value, name, 0);
        if ("problem" in converted) {
          options.problem(line, cut(name), converted.problem);
          ok = false;
        } else values[name] = converted.value;
      }
      if (ok) rows.push({ line, values });
    }
    rowStart = rowEnd;
    if (rows.length) yield rows;
  }
  facts.sha256 = await hashFile(path);
  return facts;
}

/** A Parquet value as JSON: int64 to number, timestamps to ISO text, text that holds JSON parsed. */
function jsonValue(
  value: unknown,
  path: string,
  depth: number,
): { value: unknown } | { problem: string } {
  if (depth > MAX_DEPTH) return { problem: `is nested more than ${MAX_DEPTH} levels deep` };
  if (typeof value === "bigint") {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      return { problem: `${value} is too large to send as a JSON number` };
    }
    return { value: Number(value) };
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    return {
      problem: `${value} is not a finite number${path.includes(".") ? ` (at ${cut(path)})` : ""}`,
    };
  }
  if (typeof value === "string") return { value: cellValue(value) };
  if (value instanceof Date) return { value: value.toISOString() };
  if (value instanceof Uint8Array) {
    return {
      problem:
        "holds binary data (a BYTE_ARRAY column without a STRING annotation), which cannot be sent as JSON; store it as a string column",
    };
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const converted = jsonValue(item, `${path}[${i}]`, depth + 1);
      if ("problem" in converted) return converted;
      out.push(converted.value);
    }
    return { value: out };
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const converted = jsonValue(item, `${path}.${key}`, depth + 1);
      if ("problem" in converted) return converted;
      out[key] = converted.value;
    }
    return { value: out };
  }
  return { value: value ?? null };
}
