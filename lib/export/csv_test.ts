import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { stringify } from "csv-stringify/sync";
import type { DecisionRecord } from "../record/mod.ts";
import { CSV_COLUMNS, csvRow, exportCsv } from "./csv.ts";
import { fileText } from "./types.ts";

function input(records: DecisionRecord[]) {
  return {
    run: runJson(records),
    decisions: async function* () {
      yield* records;
    },
  };
}

Deno.test("`exportCsv()` quotes as RFC 4180 and keeps a server's text from becoming a formula", async () => {
  const records = [
    record({ case: 'a,"b"' }),
    errored({ error: { kind: "invalid_request", message: '=HYPERLINK("http://x","y")' } }),
    errored({ error: { kind: "unavailable", message: "@SUM(1)" } }),
  ];
  const { files } = exportCsv(input(records));
  const text = await fileText(files[0]!);
  assert.ok(text.endsWith("\r\n"));
  const rows: Record<string, string>[] = parse(text, { columns: true });
  assert.deepEqual(Object.keys(rows[0]!), CSV_COLUMNS);
  assert.equal(rows[0]!.case, 'a,"b"');
  assert.equal(rows[0]!.confidence, "0.8");
  assert.equal(rows[0]!.correct, "true");
  assert.deepEqual(JSON.parse(rows[0]!.predicted!), { true: 0.8, false: 0.2 });
  assert.equal(rows[1]!.error_message, `'=HYPERLINK("http://x","y")`);
  assert.equal(rows[2]!.error_message, "'@SUM(1)");
  assert.equal(rows[1]!.confidence, "", "n/a is an empty cell");
});

// Text a spreadsheet would split into rows or run as a formula.
const INJECTIONS = [
  "=1+1",
  " =cmd|' /C calc'!A0",
  "\t=1",
  "+1",
  "-1",
  "@SUM(1)",
  "\r=1",
  "\n=1",
  "a\nb",
  "a\rb",
  "a\r\nb",
  '"q"',
  "a,b",
  "  @x",
  "\u0000nul",
  "plain",
];

// The guard the export promises: a text cell whose first character is a control character, or
// whose first non-blank character is `=`, `+`, `-` or `@`, gets a leading `'`.
function guarded(value: string): string {
  return /^(?:[\p{Cc}]|\s*[=+\-@])/u.test(value) ? `'${value}` : value;
}

Deno.test("`exportCsv()` keeps rows whole and formulas inert for ids, lanes and messages read back strictly", async () => {
  const records = INJECTIONS.map((s, i) =>
    errored({
      case: s,
      workflow: s,
      question: `${s}${i}`,
      endpoint: s,
      error: { kind: "malformed", message: s },
    })
  );
  records.push(record({ confidence: -0.5 }));
  const { files } = exportCsv(input(records));
  const text = await fileText(files[0]!);
  // Strict: any line ending ends a record (as a spreadsheet reads it), no loose quotes, every row
  // the header's width.
  const rows: Record<string, string>[] = parse(text, {
    columns: true,
    record_delimiter: ["\r\n", "\n", "\r"],
    relax_quotes: false,
    relax_column_count: false,
    skip_empty_lines: false,
    trim: false,
  });
  assert.equal(rows.length, records.length, "one row per decision");
  INJECTIONS.forEach((s, i) => {
    const row = rows[i]!;
    assert.equal(row.case, guarded(s), `case ${JSON.stringify(s)}`);
    assert.equal(row.workflow, guarded(s), `workflow ${JSON.stringify(s)}`);
    assert.equal(row.question, guarded(`${s}${i}`), `question ${JSON.stringify(s)}`);
    assert.equal(row.endpoint, guarded(s), `endpoint ${JSON.stringify(s)}`);
    assert.equal(row.error_message, guarded(s), `message ${JSON.stringify(s)}`);
  });
  for (const row of rows) {
    for (const [column, cell] of Object.entries(row)) {
      if (column === "confidence") continue;
      assert.doesNotMatch(cell, /^(?:[\p{Cc}]|\s*[=+\-@])/u, `${column} ${JSON.stringify(cell)}`);
    }
  }
  assert.equal(rows.at(-1)!.confidence, "-0.5", "a negative number stays a number");
});

Deno.test("`exportCsv()` streamed in batches writes the bytes one whole-file stringify would", async () => {
  for (const n of [0, 1, 999, 1000, 1001, 2500]) {
    const records = Array.from(
      { length: n },
      (_, i) =>
        i % 7 === 3
          ? errored({ case: `c${i}`, error: { kind: "unavailable", message: "line\nbreak" } })
          : record({ case: `c${i}`, confidence: (i % 10) / 10 }),
    );
    const whole = await fileText(exportCsv(input(records)).files[0]!);
    // The whole-file writer: every row at once, then one stringify with the header.
    const once = stringify(records.map((r) => csvRow(runJson(records).id, r)), {
      header: true,
      columns: [...CSV_COLUMNS],
      record_delimiter: "windows",
      quoted_match: /[\r\n]/,
    });
    assert.equal(whole, once, `${n} decisions`);
  }
});
