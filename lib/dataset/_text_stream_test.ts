import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  HashedBytes,
  invalidUtf8Line,
  LineStream,
  LongLineError,
  regularFileSize,
} from "./_text_stream.ts";

Deno.test("`LineStream` numbers lines across pieces, drops CR of CRLF, keeps a last line without LF", async () => {
  const pieces = ["a\r", "\nb", "b\n\nc", "cc\r\nd", "d"];
  const batches = await Array.fromAsync(ReadableStream.from(pieces).pipeThrough(new LineStream()));
  assert.deepEqual(batches.flat(), [
    { line: 1, text: "a" },
    { line: 2, text: "bb" },
    { line: 3, text: "" },
    { line: 4, text: "ccc" },
    { line: 5, text: "dd" },
  ]);
});

Deno.test("`LineStream` holds at most one unfinished line, and refuses one over its limit", async () => {
  const long = ReadableStream.from(["ok\n", "x".repeat(60), "x".repeat(60)]);
  await assert.rejects(
    Array.fromAsync(long.pipeThrough(new LineStream(100))),
    (error: unknown) =>
      error instanceof LongLineError && error.line === 2 &&
      /longer than 100 characters/.test(error.message),
  );
});

Deno.test("`HashedBytes` reads a file in bounded chunks and hashes exactly its bytes", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "data.bin");
  const data = new Uint8Array(1_500_000).map((_, i) => (i * 7919) % 251);
  await Deno.writeFile(path, data);
  const bytes = new HashedBytes(await Deno.open(path), createHash("sha256"));
  let largest = 0;
  let total = 0;
  for await (const chunk of bytes.readable) {
    largest = Math.max(largest, chunk.length);
    total += chunk.length;
  }
  assert.equal(total, data.length);
  assert.ok(largest <= 256 * 1024, `chunks of at most 256 KiB (largest ${largest})`);
  assert.equal(bytes.bytes, data.length);
  assert.equal(bytes.sha256(), createHash("sha256").update(data).digest("hex"));
});

Deno.test("`invalidUtf8Line()` finds the line of the first byte that is not UTF-8, across chunks", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "bad.jsonl");
  const good = new TextEncoder().encode("é".repeat(200_000) + "\n{}\n");
  // 0xc3 opens a two-byte sequence that the line feed breaks.
  await Deno.writeFile(path, new Uint8Array([...good, 0x7b, 0xc3, 0x0a, 0x7d, 0x0a]));
  assert.equal(await invalidUtf8Line(path), 3);
  await Deno.writeFile(path, good);
  assert.equal(await invalidUtf8Line(path), null);
});

Deno.test("`regularFileSize()` refuses a folder, a FIFO and a device without opening them", async () => {
  const dir = await Deno.makeTempDir();
  await assert.rejects(regularFileSize(dir), TypeError, "is a folder, not a regular file");
  await assert.rejects(regularFileSize("/dev/zero"), TypeError, "is a device, not a regular file");
  const fifo = join(dir, "pipe.jsonl");
  const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.ok(made.success, "mkfifo");
  await assert.rejects(
    regularFileSize(fifo),
    TypeError,
    "is a FIFO (named pipe), not a regular file",
  );
  const file = join(dir, "ok.jsonl");
  await Deno.writeTextFile(file, "{}\n");
  assert.equal(await regularFileSize(file), 3);
});
