import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { CSV_COLUMNS, exportCsv } from "./csv.ts";

Deno.test("`exportCsv()` quotes as RFC 4180 and keeps a server's text from becoming a formula", () => {
  const records = [
    record({ case: 'a,"b"' }),
    errored({ error: { kind: "invalid_request", message: '=HYPERLINK("http://x","y")' } }),
    errored({ error: { kind: "unavailable", message: "@SUM(1)" } }),
  ];
  const { files } = exportCsv({ run: runJson(records), records });
  const text = files[0]!.text;
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
