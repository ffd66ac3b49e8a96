/**
 * Reading JSONL files written append-as-you-go, line by line as a Web Stream: nothing holds the
 * whole file.
 *
 * @module
 */
import type { DecisionRecord } from "./schemas.ts";

/** One line of a file: its number (1-based) and its text, without the newline. */
export interface TextLine {
  /** Line number, from 1. */
  line: number;
  /** The text, without the line break. */
  text: string;
  /** True when the line ends the file without a newline (a write cut short). */
  last: boolean;
}

/** One decision read from `decisions.jsonl`, with its line number. */
export interface DecisionLine {
  /** Line number in the file, from 1. */
  line: number;
  /** The decision as written (no schema check). */
  record: DecisionRecord;
}

/** Splits a stream of text into lines (without their `\n`); a last line without one is kept. */
function lineSplitter(): TransformStream<string, { text: string; last: boolean }> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() as string;
      for (const text of parts) controller.enqueue({ text, last: false });
    },
    flush(controller) {
      if (rest) controller.enqueue({ text: rest, last: true });
    },
  });
}

/**
 * The lines of a text file, streamed (`TextDecoderStream` and a line splitter).
 *
 * @param path Path of the file.
 * @returns The lines in file order; none when the file does not exist.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function* readTextLines(path: string): AsyncGenerator<TextLine> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  let line = 0;
  // The stream closes the file when it is read to the end or cancelled.
  const lines = file.readable.pipeThrough(new TextDecoderStream()).pipeThrough(lineSplitter());
  for await (const { text, last } of lines) yield { line: ++line, text, last };
}

/**
 * The JSON values of a JSONL file, streamed: blank lines and a line that does not parse (a torn
 * last line from a crash) are skipped. No schema check.
 *
 * @param path Path of the file.
 * @returns Each value with its line number; none when the file does not exist.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function* readJsonLineStream<T>(
  path: string,
): AsyncGenerator<{ line: number; value: T }> {
  for await (const { line, text } of readTextLines(path)) {
    if (!text.trim()) continue;
    let value: T;
    try {
      value = JSON.parse(text);
    } catch {
      continue; // a torn line
    }
    yield { line, value };
  }
}

/**
 * The decisions of a `decisions.jsonl`, streamed in file order (the order cases were answered): a
 * torn last line from a crash is skipped. Readers that need a decision per (case, question) take
 * the last line of each (`answeredCases`).
 *
 * @param path Path of the file.
 * @returns Each decision with its line number; none when the file does not exist.
 * @throws {Error} When the file exists but cannot be read.
 * @example
 * ```ts ignore
 * import { readDecisionLines } from "./lines.ts";
 * for await (const { line, record } of readDecisionLines("runs/r1/decisions.jsonl")) {
 *   if (record.error) console.log(line, record.case, record.error.kind);
 * }
 * ```
 */
export async function* readDecisionLines(path: string): AsyncGenerator<DecisionLine> {
  for await (const { line, value } of readJsonLineStream<DecisionRecord>(path)) {
    yield { line, record: asUnlabelled(value) };
  }
}

/**
 * A decision without gold in the form every reader expects: `correct` null and no KL or Brier
 * field (a line written before unlabelled decisions were recorded so said `"correct": false`).
 *
 * @param record A decision as read.
 * @returns The same object, changed when it has no gold.
 */
export function asUnlabelled(record: DecisionRecord): DecisionRecord {
  if (record === null || typeof record !== "object" || record.gold !== null) return record;
  if (record.correct === false) record.correct = null;
  if (record.kl === null) delete record.kl;
  if (record.brier === null) delete record.brier;
  return record;
}

/**
 * Decisions in one order whatever order they were answered in: grouped by case, cases by id
 * (a case's decisions keep their order). What a reader computes from a run's decisions with an
 * order-dependent step (a seeded bootstrap) is then the same for any arrival order. The array
 * itself is returned when it is in that order already.
 *
 * @param records Decisions, each case's contiguous or not.
 * @returns The decisions by case id.
 */
export function inCaseOrder<T extends Pick<DecisionRecord, "case">>(
  records: readonly T[],
): readonly T[] {
  let sorted = true;
  for (let i = 1; i < records.length && sorted; i++) {
    sorted = (records[i - 1] as T).case <= (records[i] as T).case;
  }
  if (sorted) return records;
  return records.map((r, i) => ({ r, i })).sort((a, b) =>
    a.r.case < b.r.case ? -1 : a.r.case > b.r.case ? 1 : a.i - b.i
  ).map(({ r }) => r);
}
