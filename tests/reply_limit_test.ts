// End-to-end: replies too large to read — a gzip bomb (a small compressed body that expands to
// 200 MB) and a 100 MB body of junk — over real HTTP on loopback. Each case is a `malformed`
// error naming the limit, asked once (not retried), and the run goes on.
import assert from "node:assert/strict";
import { readDecisions } from "../lib/record/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";

const MIB = 1024 * 1024;

/** 200 MB of zeros, gzip-compressed (about 200 KB). */
async function gzipBomb(): Promise<Uint8Array<ArrayBuffer>> {
  const zeros = new Uint8Array(MIB);
  const source = new ReadableStream<Uint8Array<ArrayBuffer>>({
    start(controller) {
      for (let i = 0; i < 200; i++) controller.enqueue(zeros);
      controller.close();
    },
  });
  return new Uint8Array(
    await new Response(source.pipeThrough<Uint8Array<ArrayBuffer>>(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
}

/** `size` bytes of junk, streamed in 1 MiB chunks (never held whole). */
function junk(size: number): ReadableStream<Uint8Array<ArrayBuffer>> {
  const chunk = new Uint8Array(MIB).fill(0x78);
  let sent = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (sent >= size) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

/** A server answering every request with 200 and the reply `make` gives, counting requests. */
function server(make: () => Response) {
  let requests = 0;
  const s = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return make();
  });
  return {
    url: `http://127.0.0.1:${s.addr.port}`,
    requests: () => requests,
    [Symbol.asyncDispose]: () => s.shutdown(),
  };
}

Deno.test("a reply over the limit — a gzip bomb or 100 MB of junk — is a malformed case naming the limit, not retried", async (t) => {
  const bomb = await gzipBomb();
  const table: [string, () => Response, string[], RegExp][] = [
    [
      "a gzip bomb",
      () =>
        new Response(bomb, {
          headers: { "content-type": "application/json", "content-encoding": "gzip" },
        }),
      [],
      /over the 16 MiB limit on a reply/,
    ],
    [
      "100 MB of junk",
      () => new Response(junk(100 * MIB), { headers: { "content-type": "application/json" } }),
      [],
      /over the 16 MiB limit on a reply/,
    ],
    [
      "100 MB of junk with --max-reply-mb 2",
      () => new Response(junk(100 * MIB), { headers: { "content-type": "application/json" } }),
      ["--max-reply-mb", "2"],
      /over the 2 MiB limit on a reply/,
    ],
  ];
  for (const [name, make, flags, pattern] of table) {
    await t.step(name, async () => {
      await using s = server(make);
      const out = await Deno.makeTempDir();
      try {
        const r = await runScript("bench.ts", [
          "workflows/llama.ts",
          "--base-url",
          s.url,
          "--limit",
          "3",
          "--parallel",
          "1",
          "--out",
          out,
          "--no-db",
          ...flags,
        ]);
        assert.equal(r.code, 1, r.stderr);
        const records = await readDecisions(`${out}/decisions.jsonl`);
        assert.ok(records.length > 0);
        for (const d of records) {
          assert.equal(d.error?.kind, "malformed");
          assert.match(d.error?.message ?? "", pattern);
        }
        assert.equal(s.requests(), 3, "one request per case: not retried");
      } finally {
        await Deno.remove(out, { recursive: true });
      }
    });
  }
});
