/**
 * Decisions as CSV for spreadsheets: one row per decision with the run id, RFC 4180 quoting
 * (csv-stringify), distributions as JSON text in option order, booleans as `true`/`false`, empty
 * cells for n/a. A cell holding a carriage return, a line feed, a quote or a comma is quoted, so a
 * lone line break in an id cannot split a row. A text cell (ids, lanes, question names, answers,
 * endpoints, error messages) that a spreadsheet would run as a formula — its first character a
 * control character (tab, carriage return, line feed, NUL, ...) or its first non-blank character
 * `=`, `+`, `-` or `@` — gets a leading `'`, so a server's text cannot become a formula. Numeric
 * columns are written as numbers and never guarded: `-0.5` stays a number.
 *
 * @module
 */
import { stringify } from "csv-stringify/sync";
import type { DecisionRecord } from "../record/mod.ts";
import type { ExportInput, ExportResult } from "./types.ts";

/** Rows stringified at once: few enough to hold, many enough that a call is not per row. */
const BATCH_ROWS = 1000;

const CSV_OPTIONS = {
  record_delimiter: "windows",
  // csv-stringify quotes the whole record delimiter (CRLF) but not a lone CR or LF.
  quoted_match: /[\r\n]/,
} as const;

/** The CSV's columns, in order. */
export const CSV_COLUMNS: readonly string[] = [
  "run_id",
  "case",
  "workflow",
  "question",
  "type",
  "answer",
  "confidence",
  "gold",
  "correct",
  "kl",
  "brier",
  "latency_ms",
  "attempts",
  "input_tokens",
  "calibrated",
  "error_kind",
  "error_message",
  "endpoint",
  "predicted",
  "gold_probabilities",
];

/** The file's path under the export root. */
export const CSV_PATH = "decisions.csv";

const FORMULA = /^(?:\p{Cc}|\s*[=+\-@])/u;

function text(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  return FORMULA.test(value) ? `'${value}` : value;
}

function number(value: number | null | undefined): number | string {
  return value === null || value === undefined ? "" : value;
}

/**
 * One decision's CSV cells, in {@linkcode CSV_COLUMNS} order (text guarded, n/a as empty cells).
 *
 * @param runId The run id (the first column).
 * @param r The decision.
 * @returns The cells.
 */
export function csvRow(runId: string, r: DecisionRecord): (string | number)[] {
  return [
    text(runId),
    text(r.case),
    text(r.workflow),
    text(r.question),
    r.type,
    text(r.answer),
    number(r.confidence),
    text(r.gold),
    r.gold === null || r.correct === null ? "" : String(r.correct), // empty: unlabelled
    number(r.kl),
    number(r.brier),
    number(r.latency_ms),
    r.attempts,
    number(r.input_tokens),
    r.calibrated === null ? "" : String(r.calibrated),
    r.error?.kind ?? "",
    text(r.error?.message),
    text(r.endpoint),
    r.predicted === null ? "" : JSON.stringify(r.predicted),
    r.gold_probabilities === null ? "" : JSON.stringify(r.gold_probabilities),
  ];
}

/**
 * Exports a run's decisions as CSV, written as it is read: the decisions are streamed and turned
 * into rows a batch at a time, so memory does not grow with the run.
 *
 * @param input The run and its decisions.
 * @returns The CSV file (path `decisions.csv`), header first, lines ending in CRLF.
 * @example
 * ```ts ignore
 * import { openRun } from "../record/mod.ts";
 * import { exportCsv } from "./csv.ts";
 * const { files } = exportCsv(await openRun("runs/<id>"));
 * ```
 */
export function exportCsv(input: ExportInput): ExportResult {
  return { format: "csv", files: [{ path: CSV_PATH, chunks: () => csvChunks(input) }] };
}

async function* csvChunks(input: ExportInput): AsyncGenerator<string> {
  yield stringify([[...CSV_COLUMNS]], CSV_OPTIONS);
  let batch: (string | number)[][] = [];
  for await (const r of input.decisions()) {
    batch.push(csvRow(input.run.id, r));
    if (batch.length === BATCH_ROWS) {
      yield stringify(batch, CSV_OPTIONS);
      batch = [];
    }
  }
  if (batch.length > 0) yield stringify(batch, CSV_OPTIONS);
}
