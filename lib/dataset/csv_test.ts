import assert from "node:assert/strict";
import { CsvSyntaxError, parseCsv } from "./csv.ts";

Deno.test("`parseCsv()` keeps the line each record starts on, across quoted line breaks", () => {
  const records = parseCsv('id,body\n1,"two\nlines"\n\n2,plain\n3,"a ""quoted"" word"');
  assert.deepEqual(records, [
    { line: 1, fields: ["id", "body"] },
    { line: 2, fields: ["1", "two\nlines"] },
    { line: 5, fields: ["2", "plain"] },
    { line: 6, fields: ["3", 'a "quoted" word'] },
  ]);
});

Deno.test("`parseCsv()` reads CRLF files, drops a byte-order mark, keeps empty fields", () => {
  const records = parseCsv('\ufeffa,b,c\r\n1,,3\r\n"x\r\ny",2,\r\n4,5,6\r\n');
  assert.deepEqual(records, [
    { line: 1, fields: ["a", "b", "c"] },
    { line: 2, fields: ["1", "", "3"] },
    { line: 3, fields: ["x\r\ny", "2", ""] },
    { line: 5, fields: ["4", "5", "6"] },
  ]);
});

Deno.test("`parseCsv()` refuses an unclosed quote and text after a closing quote, naming the line", async (t) => {
  await t.step("unclosed quote: the line the quote opens on", () => {
    assert.throws(
      () => parseCsv('a,b\n1,2\n3,"open\nmore'),
      (e: unknown) => e instanceof CsvSyntaxError && e.line === 3 && /never closed/.test(e.message),
    );
  });
  await t.step("text after a closing quote", () => {
    assert.throws(
      () => parseCsv('a,b\n1,"x"y\n'),
      (e: unknown) =>
        e instanceof CsvSyntaxError && e.line === 2 && /text after a closing quote/.test(e.message),
    );
  });
});
