/**
 * Private: reads a user question set file (JSONL, CSV or Parquet) into plain rows, each with the
 * line (or Parquet row) it came from, and the file's integrity facts. Format problems (not JSON,
 * an unclosed quote, a ragged row, a file that is not Parquet) are collected, not thrown one by one.
 *
 * @module
 */
import { sha256Hex } from "../bytes.ts";
import { CsvSyntaxError, parseCsv } from "./csv.ts";
import type { QuestionSetProblem } from "./question_set_error.ts";
import type { QuestionSetFormat } from "./schemas.ts";

/** One row: its fields (only those present) and where it is. */
export interface RawRow {
  /** CSV: the line the record starts on; JSONL: the line; Parquet: the row number, 1 first. */
  line: number;
  /** Field name → value. */
  values: Record<string, unknown>;
}

/** A read file. */
export interface RawFile {
  /** Its format. */
  format: QuestionSetFormat;
  /** sha256 of the bytes. */
  sha256: string;
  /** Size in bytes. */
  bytes: number;
  /** The header's columns (CSV, Parquet); null for JSONL, whose rows name their own fields. */
  columns: string[] | null;
  /** The rows in file order (those that could be read). */
  rows: RawRow[];
  /** Format problems, in file order. */
  problems: QuestionSetProblem[];
}

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
 * Reads a question set file.
 *
 * @param path The file to read.
 * @param shown The file name used in problems.
 * @returns The rows and facts, with any format problems.
 * @throws {Deno.errors.NotFound} When the file does not exist.
 */
export async function readRows(path: string, shown: string): Promise<RawFile> {
  const format = formatOf(path);
  if (format === null) throw new TypeError(`Cannot read "${shown}": not .jsonl, .csv or .parquet`);
  const bytes = await Deno.readFile(path);
  const sha256 = await sha256Hex(bytes);
  const base = { format, sha256, bytes: bytes.length };
  const problems: QuestionSetProblem[] = [];
  const problem = (line: number | null, field: string | null, message: string): void => {
    problems.push({ file: shown, line, field, message });
  };
  if (format === "parquet") {
    const { columns, rows } = await readParquet(bytes, problem);
    return { ...base, columns, rows, problems };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    problem(null, null, "is not UTF-8 text; save it as UTF-8");
    return { ...base, columns: null, rows: [], problems };
  }
  if (format === "jsonl") {
    return { ...base, columns: null, rows: readJsonl(text, problem), problems };
  }
  const { columns, rows } = readCsv(text, problem);
  return { ...base, columns, rows, problems };
}

type Report = (line: number | null, field: string | null, message: string) => void;

function readJsonl(text: string, problem: Report): RawRow[] {
  const rows: RawRow[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problem(i + 1, null, `is not valid JSON (${(error as Error).message})`);
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problem(i + 1, null, "is not a JSON object; write one object per line");
      continue;
    }
    rows.push({ line: i + 1, values: value as Record<string, unknown> });
  }
  return rows;
}

function readCsv(text: string, problem: Report): { columns: string[] | null; rows: RawRow[] } {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    problem(error.line, null, error.message);
    return { columns: null, rows: [] };
  }
  const header = records[0];
  if (header === undefined) return { columns: null, rows: [] };
  const columns = header.fields;
  const seen = new Set<string>();
  for (const [i, name] of columns.entries()) {
    if (name.trim() === "") problem(header.line, `column ${i + 1}`, "has no name in the header");
    else if (seen.has(name)) problem(header.line, name, "appears twice in the header");
    seen.add(name);
  }
  const rows: RawRow[] = [];
  for (const record of records.slice(1)) {
    const { fields, line } = record;
    if (fields.length < columns.length) {
      problem(
        line,
        columns[fields.length] ?? null,
        `missing: the row has ${fields.length} fields, the header ${columns.length} (a missing comma, or a line break outside quotes?)`,
      );
      continue;
    }
    if (fields.length > columns.length) {
      problem(
        line,
        `column ${columns.length + 1}`,
        `has no column: the row has ${fields.length} fields, the header ${columns.length}; quote values that contain commas`,
      );
      continue;
    }
    const values: Record<string, unknown> = {};
    for (const [i, name] of columns.entries()) values[name] = cellValue(fields[i] as string);
    rows.push({ line, values });
  }
  return { columns, rows };
}

async function readParquet(
  bytes: Uint8Array,
  problem: Report,
): Promise<{ columns: string[] | null; rows: RawRow[] }> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  let objects: Record<string, unknown>[];
  let columns: string[];
  // Loaded only for a Parquet question set: a run on the vendored dataset does not load them.
  const { parquetMetadata, parquetReadObjects, parquetSchema } = await import("hyparquet");
  const { compressors } = await import("hyparquet-compressors");
  try {
    const metadata = parquetMetadata(file as ArrayBuffer);
    columns = parquetSchema(metadata).children.map((child) => child.element.name);
    objects = await parquetReadObjects({ file: file as ArrayBuffer, metadata, compressors });
  } catch (error) {
    problem(
      null,
      null,
      `cannot be read as Parquet (${
        (error as Error).message
      }); export it again, or use .csv or .jsonl`,
    );
    return { columns: null, rows: [] };
  }
  const rows: RawRow[] = [];
  for (const [i, object] of objects.entries()) {
    const values: Record<string, unknown> = {};
    let ok = true;
    for (const [name, value] of Object.entries(object)) {
      const converted = jsonValue(value, name);
      if ("problem" in converted) {
        problem(i + 1, name, converted.problem);
        ok = false;
      } else values[name] = converted.value;
    }
    if (ok) rows.push({ line: i + 1, values });
  }
  return { columns, rows };
}

/** A Parquet value as JSON: int64 to number, timestamps to ISO text, text that holds JSON parsed. */
function jsonValue(value: unknown, path: string): { value: unknown } | { problem: string } {
  if (typeof value === "bigint") {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      return { problem: `${value} is too large to send as a JSON number` };
    }
    return { value: Number(value) };
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    return {
      problem: `${value} is not a finite number${path.includes(".") ? ` (at ${path})` : ""}`,
    };
  }
  if (typeof value === "string") return { value: cellValue(value) };
  if (value instanceof Date) return { value: value.toISOString() };
  if (value instanceof Uint8Array) {
    return { problem: "holds binary data, which cannot be sent as JSON; store it as text" };
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const [i, item] of value.entries()) {
      const converted = jsonValue(item, `${path}[${i}]`);
      if ("problem" in converted) return converted;
      out.push(converted.value);
    }
    return { value: out };
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const converted = jsonValue(item, `${path}.${key}`);
      if ("problem" in converted) return converted;
      out[key] = converted.value;
    }
    return { value: out };
  }
  return { value: value ?? null };
}
