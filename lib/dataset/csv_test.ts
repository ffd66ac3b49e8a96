import assert from "node:assert/strict";
import { CsvParser, CsvStream, CsvSyntaxError, parseCsv } from "./csv.ts";

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

/** Parses text given in the pieces cut at the offsets. */
function inPieces(text: string, cuts: number[]): ReturnType<typeof parseCsv> {
  const parser = new CsvParser();
  const out = [];
  let start = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(...parser.push(text.slice(start, cut)));
    start = cut;
  }
  return [...out, ...parser.end()];
}

Deno.test("`CsvParser` gives the same records and lines wherever the text is cut", () => {
  const text = '\ufeffid,body,n\r\n1,"two\r\nlines ""quoted""",3\r\n\r\n2,"",\n"a\nb\nc",x"y,\r\n' +
    '4,"""",5\r\n5,"end"';
  const whole = parseCsv(text);
  assert.equal(whole.length, 6);
  assert.deepEqual(whole[1], { line: 2, fields: ["1", 'two\r\nlines "quoted"', "3"] });
  assert.deepEqual(whole[3], { line: 6, fields: ["a\nb\nc", 'x"y', ""] });
  assert.deepEqual(whole[4], { line: 9, fields: ["4", '"', "5"] });
  for (let cut = 0; cut <= text.length; cut++) {
    assert.deepEqual(inPieces(text, [cut]), whole, `cut at ${cut}`);
    for (let second = cut; second <= Math.min(text.length, cut + 3); second++) {
      assert.deepEqual(inPieces(text, [cut, second]), whole, `cut at ${cut} and ${second}`);
    }
  }
  const oneByOne = Array.from({ length: text.length }, (_, i) => i);
  assert.deepEqual(inPieces(text, oneByOne), whole, "one character at a time");
});

Deno.test("`CsvParser` names the same line for a syntax error wherever the text is cut", () => {
  for (const [text, line] of [['a\n1,"x\n\ny"z\n', 4], ['a\n\n2,"open\nmore\n', 3]] as const) {
    for (let cut = 0; cut <= text.length; cut++) {
      assert.throws(
        () => inPieces(text, [cut]),
        (error: unknown) => error instanceof CsvSyntaxError && error.line === line,
        `cut at ${cut}`,
      );
    }
  }
});

Deno.test("`CsvStream` emits records as the text streams, holding only the record being read", async () => {
  const rows = Array.from({ length: 3000 }, (_, i) => `${i},"row ${i}"`);
  const text = "n,body\n" + rows.join("\n") + "\n";
  const pieces = text.match(/[^]{1,1000}/g)!;
  const batches = await Array.fromAsync(
    ReadableStream.from(pieces).pipeThrough(new CsvStream()),
  );
  assert.ok(batches.length >= pieces.length - 1, "a batch per piece, not one at the end");
  assert.ok(batches.every((b) => b.length <= 100), "a 1,000-character piece holds < 100 records");
  const records = batches.flat();
  assert.equal(records.length, 3001);
  assert.deepEqual(records[3000], { line: 3001, fields: ["2999", "row 2999"] });
});

Deno.test("`CsvParser` refuses a field longer than its limit at the line the field opens on", () => {
  const parser = new CsvParser();
  parser.push('a,b\n1,"');
  const piece = "x".repeat(1024 * 1024);
  assert.throws(
    () => {
      for (let i = 0; i < 17; i++) parser.push(piece);
    },
    (error: unknown) =>
      error instanceof RangeError && (error as RangeError & { line: number }).line === 2 &&
      /a field is longer than 16 Mi characters/.test(error.message),
  );
});

Deno.test("`CsvParser` reads the delimiter from the first line: a comma unless it has none", async (t) => {
  const read = (pieces: string[]) => {
    const parser = new CsvParser();
    return [...pieces.flatMap((p) => parser.push(p)), ...parser.end()].map((r) => r.fields);
  };
  await t.step("semicolons, the header cut across pieces", () => {
    assert.deepEqual(read(["id;bo", 'dy\n1;a, b\n2;"x;y"\n']), [
      ["id", "body"],
      ["1", "a, b"],
      ["2", "x;y"],
    ]);
  });
  await t.step("tabs", () => {
    assert.deepEqual(read(["id\tbody\n1\tx\n"]), [["id", "body"], ["1", "x"]]);
  });
  await t.step("a comma header keeps commas, whatever later lines hold", () => {
    assert.deepEqual(read(["id,body\n1,a;b\n"]), [["id", "body"], ["1", "a;b"]]);
  });
  await t.step("a one-line file without a line break", () => {
    assert.deepEqual(read(["a;b"]), [["a", "b"]]);
  });
});
