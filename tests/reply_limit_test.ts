// End-to-end: replies too large to read — a gzip bomb (a small compressed body that expands to
// 200 MB) and a 100 MB body of junk — over real HTTP on loopback. Each case is a `malformed`
// error naming the limit, asked once (not retried), and the run goes on.
import assert from "node:assert/strict";
import { readDecisions } from "../lib/record/mod.ts";
import { runScript, spawnScript } from "./bench_cli_helpers.ts";

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

/** `size` bytes of zeros, gzip-compressed as they are read (a bomb of any size, made lazily). */
function lazyBomb(size: number): ReadableStream<Uint8Array<ArrayBuffer>> {
  const zeros = new Uint8Array(MIB);
  let sent = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      if (sent >= size) return controller.close();
      controller.enqueue(zeros);
      sent += MIB;
    },
  }).pipeThrough<Uint8Array<ArrayBuffer>>(new CompressionStream("gzip"));
}

/** The peak resident memory (VmHWM, MB) of a process, read until it exits. */
async function peakMb(child: Deno.ChildProcess): Promise<number> {
  let peak = 0;
  const read = () => {
    try {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      peak = Math.max(peak, Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
    } catch {
      // gone
    }
  };
  // VmHWM only grows: the last reading before the exit is the peak, whenever it is taken.
  const timer = setInterval(read, 25);
  await child.status;
  clearInterval(timer);
  return peak;
}

Deno.test({
  name:
    "replies over the limit at the default parallel — a 4 GiB gzip bomb, 100 MB of junk — keep bench under 300 MB",
  ignore: Deno.build.os !== "linux",
  async fn(t) {
    const table: [string, () => Response][] = [
      [
        "a gzip bomb expanding to 4 GiB",
        () =>
          new Response(lazyBomb(4096 * MIB), {
            headers: { "content-type": "application/json", "content-encoding": "gzip" },
          }),
      ],
      [
        "100 MB of junk",
        () => new Response(junk(100 * MIB), { headers: { "content-type": "application/json" } }),
      ],
    ];
    for (const [name, make] of table) {
      await t.step(name, async () => {
        await using s = server(make);
        const out = await Deno.makeTempDir();
        try {
          // workflows/llama.ts asks 4 cases at a time (its parallel).
          const run = spawnScript("bench.ts", [
            "workflows/llama.ts",
            "--base-url",
            s.url,
            "--limit",
            "16",
            "--out",
            out,
            "--no-db",
          ]);
          const peaked = peakMb(run.child);
          for await (const _ of run.lines) { /* drained */ }
          const peak = await peaked;
          assert.equal((await run.child.status).code, 1, await run.stderr);
          const records = await readDecisions(`${out}/decisions.jsonl`);
          assert.equal(records.length, 16 * 5);
          for (const d of records) {
            assert.equal(d.error?.kind, "malformed");
            assert.match(d.error?.message ?? "", /over the 16 MiB limit on a reply/);
          }
          assert.ok(peak > 0 && peak < 300, `peak RSS of bench ${peak.toFixed(0)} MB`);
        } finally {
          await Deno.remove(out, { recursive: true });
        }
      });
    }
  },
});
