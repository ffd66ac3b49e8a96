/**
 * A small RFC 4180 CSV reader that keeps the line each record starts on, so a problem in a row is
 * reported at the line a user finds it in their editor (a quoted field may span lines). It reads
 * text in pieces (`CsvParser`, `CsvStream`), so a file is never held whole.
 *
 * `csv-parse` does not serve here: its `info.lines` counts a CRLF record that spans lines one
 * line too far and its `raw` text drops the line feed, so the start line of a record cannot be
 * recovered from it. This reader is the few dozen lines RFC 4180 needs.
 *
 * @module
 */
import { LongLineError, MAX_LINE_CHARS } from "./_text_stream.ts";

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

const RECORD = 0; // between records: blank lines are skipped
const FIELD = 1; // at the start of a field
const PLAIN = 2; // inside an unquoted field
const QUOTED = 3; // inside a quoted field
const CLOSED = 4; // after a closing quote

const LF = 10;
const CR = 13;
const QUOTE = 34;

/**
 * Parses CSV text given in pieces of any size (RFC 4180: comma-separated, fields optionally in
 * double quotes, `""` for a quote inside quotes, records ending in CRLF or LF). A leading
 * byte-order mark is dropped, blank lines between records are skipped, and fields are not trimmed.
 * The delimiter is read from the first line: a comma, unless that line has none and has a
 * semicolon, a tab or a `|` (as spreadsheets in many locales save "CSV"), which is then used.
 * A field longer than 16 Mi characters is refused (a stray quote would otherwise read the rest of
 * the file into it).
 *
 * @example
 * ```ts
 * import { CsvParser } from "./csv.ts";
 * const parser = new CsvParser();
 * const records = [...parser.push('id,body\n1,"two\nli'), ...parser.push('nes"\n'), ...parser.end()];
 * records[1]; // { line: 2, fields: ["1", "two\nlines"] }
 * ```
 */
export class CsvParser {
  #state = RECORD;
  #fields: string[] = [];
  #value = "";
  #line = 1;
  #start = 1;
  #quoteLine = 1;
  #carry = "";
  #first = true;
  /** The delimiter's char code, 0 until the first line is read. */
  #delimiter = 0;

  /** The delimiter in use (read from the first line), or null before it is read. */
  get delimiter(): string | null {
    return this.#delimiter === 0 ? null : String.fromCharCode(this.#delimiter);
  }

  /**
   * Reads the next piece of text.
   *
   * @param text The piece.
   * @returns The records it completes.
   * @throws {CsvSyntaxError} When the text is not CSV.
   * @throws {LongLineError} When a field is longer than 16 Mi characters.
   */
  push(text: string): CsvRecord[] {
    return this.#read(text, false);
  }

  /**
   * Ends the text.
   *
   * @returns The last record, if the text did not end with a line break.
   * @throws {CsvSyntaxError} When a quoted field is never closed.
   */
  end(): CsvRecord[] {
    const out = this.#read("", true);
    if (this.#state === QUOTED) {
      throw new CsvSyntaxError(
        "a quoted field is never closed (a missing closing quote?)",
        this.#quoteLine,
      );
    }
    if (this.#state !== RECORD) {
      this.#fields.push(this.#value);
      out.push({ line: this.#start, fields: this.#fields });
      this.#fields = [];
      this.#state = RECORD;
    }
    return out;
  }

  #read(piece: string, final: boolean): CsvRecord[] {
    let text = this.#carry === "" ? piece : this.#carry + piece;
    this.#carry = "";
    if (this.#first && text !== "") {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.#first = false;
    }
    if (this.#delimiter === 0) {
      // The first line decides the delimiter: it waits until the line is whole.
      const end = text.indexOf("\n");
      if (end < 0 && !final) {
        this.#carry = text;
        return [];
      }
      const first = end < 0 ? text : text.slice(0, end);
      const other = first.includes(",")
        ? undefined
        : [";", "\t", "|"].find((d) => first.includes(d));
      this.#delimiter = (other ?? ",").charCodeAt(0);
    }
    // A CR or a quote at the end needs the next character to be read: it waits for it.
    if (!final && text !== "") {
      const last = text.charCodeAt(text.length - 1);
      if (last === CR || last === QUOTE) {
        this.#carry = text.slice(-1);
        text = text.slice(0, -1);
      }
    }
    const out: CsvRecord[] = [];
    const n = text.length;
    const delimiter = this.#delimiter;
    let i = 0;
    while (i < n) {
      switch (this.#state) {
        case RECORD: {
          const c = text.charCodeAt(i);
          if (c === LF) {
            i++;
            this.#line++;
          } else if (c === CR && text.charCodeAt(i + 1) === LF) {
            i += 2;
            this.#line++;
          } else {
            this.#start = this.#line;
            this.#state = FIELD;
          }
          break;
        }
        case FIELD:
          this.#value = "";
          if (text.charCodeAt(i) === QUOTE) {
            this.#quoteLine = this.#line;
            this.#state = QUOTED;
            i++;
          } else this.#state = PLAIN;
          break;
        case PLAIN: {
          let j = i;
          let c = 0;
          for (; j < n; j++) {
            c = text.charCodeAt(j);
            if (c === delimiter || c === LF || (c === CR && text.charCodeAt(j + 1) === LF)) break;
          }
          this.#append(text.slice(i, j), this.#line);
          i = j;
          if (j < n) i = this.#endField(text, j, out);
          break;
        }
        case QUOTED: {
          const j = text.indexOf('"', i);
          const segment = j < 0 ? text.slice(i) : text.slice(i, j);
          for (let k = segment.indexOf("\n"); k >= 0; k = segment.indexOf("\n", k + 1)) {
            this.#line++;
          }
          this.#append(segment, this.#quoteLine);
          if (j < 0) {
            i = n;
          } else if (j === n - 1 && !final) {
            // A quote ending the piece may be the first of a doubled quote: it waits too.
            this.#carry = '"' + this.#carry;
            i = n;
          } else if (text.charCodeAt(j + 1) === QUOTE) {
            this.#value += '"';
            i = j + 2;
          } else {
            this.#state = CLOSED;
            i = j + 1;
          }
          break;
        }
        case CLOSED: {
          const c = text.charCodeAt(i);
          if (c === delimiter || c === LF || (c === CR && text.charCodeAt(i + 1) === LF)) {
            i = this.#endField(text, i, out);
          } else {
            throw new CsvSyntaxError(
              `text after a closing quote ("${
                text.slice(i, i + 10).split(/\r?\n/)[0]
              }"); quote the whole field and double any quote inside it`,
              this.#line,
            );
          }
          break;
        }
      }
    }
    return out;
  }

  #append(text: string, line: number): void {
    this.#value += text;
    if (this.#value.length > MAX_LINE_CHARS) throw new LongLineError(line, "a field");
  }

  /** Ends the field at `i` (a comma or a line ending); returns where reading goes on. */
  #endField(text: string, i: number, out: CsvRecord[]): number {
    this.#fields.push(this.#value);
    this.#value = "";
    if (text.charCodeAt(i) === this.#delimiter) {
      this.#state = FIELD;
      return i + 1;
    }
    out.push({ line: this.#start, fields: this.#fields });
    this.#fields = [];
    this.#state = RECORD;
    this.#line++;
    return i + (text.charCodeAt(i) === CR ? 2 : 1);
  }
}

/**
 * Cuts CSV text into records as it streams; emits the records each piece completes as one batch.
 *
 * @example
 * ```ts
 * import { CsvStream } from "./csv.ts";
 * const batches = ReadableStream.from(["id\n", "1\n2"]).pipeThrough(new CsvStream());
 * const records = (await Array.fromAsync(batches)).flat();
 * records.length; // 3
 * ```
 */
export class CsvStream extends TransformStream<string, CsvRecord[]> {
  /** Creates the stream. */
  constructor() {
    const parser = new CsvParser();
    super({
      transform(chunk, controller) {
        const records = parser.push(chunk);
        if (records.length) controller.enqueue(records);
      },
      flush(controller) {
        const records = parser.end();
        if (records.length) controller.enqueue(records);
      },
    });
  }
}

/**
 * Parses CSV text held whole (see {@linkcode CsvParser} for the rules).
 *
 * @param text The file's text.
 * @returns The records in file order, each with its start line.
 * @throws {CsvSyntaxError} When a quote is never closed, or a closing quote is followed by
 *   something other than a comma or the end of the record.
 * @throws {RangeError} When a field is longer than 16 Mi characters.
 * @example
 * ```ts
 * import { parseCsv } from "./csv.ts";
 * const records = parseCsv('id,body\n1,"two\nlines"\n2,plain\n');
 * records[2]; // { line: 4, fields: ["2", "plain"] }
 * ```
 */
export function parseCsv(text: string): CsvRecord[] {
  const parser = new CsvParser();
  return [...parser.push(text), ...parser.end()];
}
