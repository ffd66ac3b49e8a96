// End-to-end: a server that echoes the Authorization header in a successful reply — in `model`
// and in every answer's `native` object — over real HTTP on loopback. The key is never written:
// not in any file of the run directory, the index, the view's pages or an export.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { freePort, runScript, spawnScript } from "./bench_cli_helpers.ts";

const KEY = "sk-SECRET-123";

/** Every form of the key the echo server sends back. */
const FORMS = [KEY, KEY.toLowerCase(), KEY.toUpperCase(), encodeURIComponent(KEY)];

/** A System One server (the reference server behind it) that echoes the Authorization header. */
async function echoServer() {
  const reference = await startReferenceServer({ predictor: "uniform" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const auth = req.headers.get("authorization") ?? "";
    const upstream = await fetch(`${reference.url}/v1/systemone`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await req.text(),
    });
    const reply = await upstream.json();
    reply.model = "model-" + auth;
    reply.provider = auth.toLowerCase();
    reply.id = auth.toUpperCase();
    for (const answer of Object.values(reply.answers ?? {}) as Record<string, unknown>[]) {
      answer.native = { auth, nested: [{ lower: auth.toLowerCase() }], [auth]: 1 };
    }
    return Response.json(reply, { status: upstream.status });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: async () => {
      await server.shutdown();
      await reference[Symbol.asyncDispose]();
    },
  };
}

async function* files(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    yield path;
    if (entry.isDirectory) yield* files(path);
  }
}

/** Where any form of the key occurs: in a path or in a file's bytes. */
async function keyHits(dir: string): Promise<string[]> {
  const hits: string[] = [];
  for await (const path of files(dir)) {
    if (FORMS.some((f) => path.includes(f))) hits.push(`path ${path}`);
    const info = await Deno.stat(path);
    if (!info.isFile) continue;
    const text = new TextDecoder("latin1").decode(await Deno.readFile(path));
    if (FORMS.some((f) => text.includes(f))) hits.push(`content ${path}`);
  }
  return hits;
}

Deno.test("a key echoed in a successful reply reaches no file, index, page or export", async () => {
  await using server = await echoServer();
  const tmp = await Deno.makeTempDir({ prefix: "decibench-key-echo-" });
  try {
    const runs = join(tmp, "runs");
    const dir = join(runs, "echo");
    const db = join(runs, "decibench.db");
    const bench = await runScript(
      "bench.ts",
      ["workflows/llama.ts", "--base-url", server.url, "--limit", "12", "--out", dir, "--db", db],
      { LLAMA_API_KEY: KEY },
    );
    assert.ok(bench.code === 0 || bench.code === 1, bench.stderr);
    const run = JSON.parse(await Deno.readTextFile(join(dir, "run.json")));
    // The echo did arrive, redacted.
    assert.equal(run.model_reported, "model-Bearer [redacted]");
    const decisions = await Deno.readTextFile(join(dir, "decisions.jsonl"));
    assert.match(decisions, /\[redacted\]/);
    assert.ok(!FORMS.some((f) => bench.stderr.includes(f)), bench.stderr);
    assert.ok(!FORMS.some((f) => bench.lines.join("\n").includes(f)));

    const exported = await runScript("export.ts", [dir, "--format", "every-eval-ever"]);
    assert.equal(exported.code, 0, exported.stderr);
    // The export's folders are named after the reported model, which held the key.
    const exportRoot = join(dir, "export");
    const exportedPaths = await Array.fromAsync(files(exportRoot));
    assert.ok(exportedPaths.some((p) => p.endsWith(".json")), exportedPaths.join("\n"));
    for (const path of exportedPaths) {
      assert.ok(!FORMS.some((f) => path.includes(f)), `the export's path ${path} holds the key`);
    }
    assert.deepEqual(await keyHits(exportRoot), [], "no export file holds the key");
    const csv = await runScript("export.ts", [dir, "--format", "csv"]);
    assert.equal(csv.code, 0, csv.stderr);

    const port = freePort();
    const view = spawnScript("view.ts", ["--port", String(port), "--db", db, "--runs", runs]);
    try {
      await view.lines.next();
      for (const page of ["/", "/api/runs", `/runs/${encodeURIComponent(run.id)}`]) {
        const res = await fetch(`http://127.0.0.1:${port}${page}`);
        const body = await res.text();
        assert.ok(!FORMS.some((f) => body.includes(f)), `${page} shows the key`);
      }
    } finally {
      view.child.kill("SIGTERM");
      await view.child.status;
      await view.stderr;
    }

    // Every file under the runs folder: run directory, exports, the index's bytes.
    assert.deepEqual(await keyHits(runs), []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a judge echoing its key in successful replies leaves it out of audit.md and every audit file", async () => {
  await using server = await echoServer();
  const tmp = await Deno.makeTempDir({ prefix: "decibench-key-echo-audit-" });
  try {
    const out = join(tmp, "audit");
    const audit = await runScript(
      "audit.ts",
      ["workflows/audit.ts", "--base-url", server.url, "--out", out],
      { DECIBENCH_JUDGE_API_KEY: KEY },
    );
    assert.ok([0, 1].includes(audit.code), audit.stderr);
    const md = await Deno.readTextFile(join(out, "audit.md"));
    // The judge did answer (its echoed model is shown, redacted).
    assert.match(md, /\[redacted\]/);
    assert.ok(!FORMS.some((f) => md.includes(f)), "audit.md holds the key");
    assert.ok(!FORMS.some((f) => audit.stderr.includes(f) || audit.lines.join("\n").includes(f)));
    assert.deepEqual(await keyHits(tmp), []);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
