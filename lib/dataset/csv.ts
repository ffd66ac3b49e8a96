/**
 * A small RFC 4180 CSV reader that keeps the line each record starts on, so a problem in a row is
 * reported at the line a user finds it in their editor (a quoted field may span lines).
 *
 * `csv-parse` does not serve here: its `info.lines` counts a CRLF record that spans lines one
 * line too far and its `raw` text drops the line feed, so the start line of a record cannot be
 * recovered from it. This reader is the few dozen lines RFC 4180 needs.
 *
 * @module
 */

/** One CSV record and the line it starts on (1 is the first line of the file). */
export interface CsvRecord {
  /** Line the record starts on. */
  line: number;
  /** The fields, unquoted. */
  fields: string[];
}

/** The text is not CSV: an unclosed quote, or text after a closing quote. */
export class CsvSyntaxError extends SyntaxError {
  /** Line the problem is on. */
  readonly line: number;

  /**
   * Creates the error.
   *
   * @param message What is wrong (without the line).
   * @param line The line it is on.
   */
  constructor(message: string, line: number) {
    super(message);
    this.name = "CsvSyntaxError";
    this.line = line;
  }
}

/**
 * Parses CSV text (RFC 4180: comma-separated, fields optionally in double quotes, `""` for a quote
 * inside quotes, records ending in CRLF or LF). A leading byte-order mark is dropped, and blank
 * lines between records are skipped. Fields are not trimmed.
 *
 * @param text The file's text.
 * @returns The records in file order, each with its start line.
 * @throws {CsvSyntaxError} When a quote is never closed, or a closing quote is followed by
 *   something other than a comma or the end of the record.
 * @example
 * ```ts
 * import { parseCsv } from "./csv.ts";
 * const records = parseCsv('id,body\n1,"two\nlines"\n2,plain\n');
 * records[2]; // { line: 4, fields: ["2", "plain"] }
 * ```
 */
export function parseCsv(text: string): CsvRecord[] {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const n = source.length;
  while (i < n) {
    // A blank line between records is no record.
    if (source[i] === "\n" || (source[i] === "\r" && source[i + 1] === "\n")) {
      i += source[i] === "\r" ? 2 : 1;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let value = "";
      if (source[i] === '"') {
        const quoteLine = line;
        i++;
        for (;;) {
          if (i >= n) {
            throw new CsvSyntaxError(
              "a quoted field is never closed (a missing closing quote?)",
              quoteLine,
            );
          }
          const ch = source[i] as string;
          if (ch === '"') {
            if (source[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (ch === "\n") line++;
          value += ch;
          i++;
        }
        const next = source[i];
        if (
          next !== undefined && next !== "," && next !== "\n" &&
          !(next === "\r" && source[i + 1] === "\n")
        ) {
          throw new CsvSyntaxError(
            `text after a closing quote ("${
              source.slice(i, i + 10).split(/\r?\n/)[0]
            }"); quote the whole field and double any quote inside it`,
            line,
          );
        }
      } else {
        while (i < n) {
          const ch = source[i] as string;
          if (ch === "," || ch === "\n" || (ch === "\r" && source[i + 1] === "\n")) break;
          value += ch;
          i++;
        }
      }
      fields.push(value);
      if (source[i] === ",") {
        i++;
        continue;
      }
      if (source[i] === "\r") i++;
      if (source[i] === "\n") {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: start, fields });
  }
  return records;
}
