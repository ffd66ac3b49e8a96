// End-to-end: bench against servers that are wrong in the ways a new user meets them, over real
// HTTP on loopback — a web page or another JSON API answering 200, a key-protected server without
// or with a wrong key, a closed port — and the messages each leaves.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { DatabaseSync } from "node:sqlite";
import { readDecisions } from "../lib/record/mod.ts";
import { freePort, readRunJson, runScript } from "./bench_cli_helpers.ts";

const PAGE = `<!doctype html>
<html><head><title>Welcome to nginx!</title></head>
<body><h1>Welcome to nginx!</h1><p>If you see this page, the web server is working.</p></body></html>
`;

/** A server that answers every request with 200 and the same body, counting requests. */
function wrongServer(body: string, contentType: string) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response(body, { status: 200, headers: { "content-type": contentType } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests: () => requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("bench stops after 3 answers that are not System One replies and says what came back", async (t) => {
  const table: [string, string, string, RegExp][] = [
    ["a web page", PAGE, "text/html; charset=utf-8", /content type "text\/html; charset=utf-8"/],
    ["another JSON API", '{"ok":true}', "application/json", /content type "application\/json"/],
  ];
  for (const [name, body, type, typePattern] of table) {
    await t.step(name, async () => {
      await using server = wrongServer(body, type);
      const out = await Deno.makeTempDir();
      const r = await runScript("bench.ts", [
        "workflows/llama.ts",
        "--base-url",
        server.url,
        "--out",
        out,
        "--no-db",
      ]);
      assert.equal(r.code, 1, r.stderr);
      // The first 3 replies decide; requests already in flight (parallel 4) may add a few.
      assert.ok(server.requests() <= 3 + 4, `${server.requests()} requests`);
      const message = r.stderr.split("\n").filter((l) => l.startsWith("decibench:"));
      assert.equal(message.length, 1, r.stderr);
      const line = message[0]!;
      assert.match(line, /not System One replies/);
      assert.match(line, /HTTP 200/);
      assert.match(line, typePattern);
      assert.ok(line.includes(JSON.stringify(body.slice(0, 80))), line);
      assert.match(line, /--base-url/);
      assert.ok(!r.stderr.includes("--resume"), "no resume hint: resuming asks the same server");
      const run = await readRunJson(out);
      assert.equal(run.status, "incomplete");
      assert.match(String(run.fatal), /not System One replies/);
      const md = await Deno.readTextFile(`${out}/report.md`);
      assert.match(md, /not System One replies/);
    });
  }
});

Deno.test("a decision server's malformed answers stay case errors and the run goes on", async () => {
  await using server = await startReferenceServer({
    predictor: "uniform",
    faults: "missing_option=1",
  });
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--limit",
    "20",
    "--out",
    out,
    "--no-db",
  ]);
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stderr, /not System One replies/);
  assert.equal(server.stats().decisionRequests, 20, "every case was asked");
  const records = await readDecisions(`${out}/decisions.jsonl`);
  assert.equal(records.length, 100);
  assert.ok(records.every((d) => d.error?.kind === "malformed"));
  assert.equal((await readRunJson(out)).fatal, null);
});

Deno.test("a decision server writing NaN or Infinity is told its reply is not valid JSON for that reason, not sent to check --base-url", async (t) => {
  const table: [string, string, RegExp][] = [
    ["NaN", '{"answers":{"x":{"noul":NaN}}}', /it holds NaN/],
    ["Infinity", '{"answers":{"x":{"noul":-Infinity}}}', /it holds -Infinity/],
  ];
  for (const [name, body, pattern] of table) {
    await t.step(name, async () => {
      await using server = wrongServer(body, "application/json");
      const out = await Deno.makeTempDir();
      const r = await runScript("bench.ts", [
        "workflows/llama.ts",
        "--base-url",
        server.url,
        "--limit",
        "6",
        "--out",
        out,
        "--no-db",
      ]);
      assert.equal(r.code, 1, r.stderr);
      assert.doesNotMatch(r.stderr, /not a decision model server|--base-url/);
      assert.equal(server.requests(), 6, "every case was asked");
      const records = await readDecisions(`${out}/decisions.jsonl`);
      assert.ok(records.every((d) => d.error?.kind === "malformed"));
      const message = records[0]?.error?.message ?? "";
      assert.match(message, /body is not valid JSON/);
      assert.match(message, pattern);
      assert.equal((await readRunJson(out)).fatal, null);
    });
  }
});

Deno.test("a refused or missing key names the variable, gives no resume hint and leaves no run directory", async (t) => {
  const key = "sk-decibench-test-51d0c7";
  await using server = await startReferenceServer({ predictor: "uniform", apiKey: key });
  const table: [string, Record<string, string>, RegExp][] = [
    ["unset", { LLAMA_API_KEY: "" }, /LLAMA_API_KEY is not set \(HTTP 401\)/],
    ["wrong", { LLAMA_API_KEY: "sk-wrong-key-1234" }, /LLAMA_API_KEY was rejected \(HTTP 401\)/],
  ];
  for (const [name, env, pattern] of table) {
    await t.step(name, async () => {
      const tmp = await Deno.makeTempDir();
      const out = `${tmp}/run`;
      const db = `${tmp}/index.db`;
      const r = await runScript("bench.ts", [
        "workflows/llama.ts",
        "--base-url",
        server.url,
        "--limit",
        "8",
        "--out",
        out,
        "--db",
        db,
      ], env);
      assert.equal(r.code, 1);
      const message = r.stderr.split("\n").filter((l) => l.startsWith("decibench:"));
      assert.equal(message.length, 1, r.stderr);
      assert.match(message[0]!, pattern);
      assert.match(message[0]!, /no run directory was kept: run the same command again/);
      assert.ok(!r.stderr.includes("--resume"), r.stderr);
      await assertNothingLeft(out, db);
      for (const text of [r.stderr, r.lines.join("\n")]) {
        assert.ok(!text.includes(key) && !text.includes("sk-wrong-key-1234"));
      }
    });
  }
  await t.step("a workflow that names no key variable", async () => {
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(
      `${dir}/nokey.ts`,
      `export default { name: "nokey", endpoint: { baseUrl: ${
        JSON.stringify(server.url)
      }, model: "m" } };\n`,
    );
    const r = await runScript("bench.ts", [`${dir}/nokey.ts`, "--out", `${dir}/run`, "--no-db"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no API key was sent \(HTTP 401\): the workflow names no key variable/);
    assert.match(r.stderr, /endpoint\.apiKeyEnv/);
  });
});

/** No run directory at `out` and no run in the index at `db`. */
async function assertNothingLeft(out: string, db: string): Promise<void> {
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound, "no run directory");
  let index: DatabaseSync;
  try {
    index = new DatabaseSync(db, { readOnly: true });
  } catch {
    return; // no index file at all
  }
  try {
    const runs = index.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number };
    const decisions = index.prepare("SELECT COUNT(*) AS n FROM decisions").get() as { n: number };
    assert.deepEqual([Number(runs.n), Number(decisions.n)], [0, 0], "no run in the index");
  } finally {
    index.close();
  }
}

Deno.test("a closed port before any answer prints its message once and leaves no run directory", async () => {
  const tmp = await Deno.makeTempDir();
  const out = `${tmp}/run`;
  const db = `${tmp}/index.db`;
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    `http://127.0.0.1:${freePort()}`,
    "--limit",
    "8",
    "--out",
    out,
    "--db",
    db,
  ]);
  assert.equal(r.code, 1);
  const all = `${r.lines.join("\n")}\n${r.stderr}`;
  assert.equal(all.split("Cannot reach the endpoint").length - 1, 1, all);
  assert.ok(!all.includes("--resume"), "nothing to resume");
  const line = r.stderr.split("\n").find((l) => l.startsWith("decibench: Cannot reach")) ?? "";
  assert.ok(line.length < 400, `${line.length} characters: ${line}`);
  assert.match(line, /start the server or check the base URL/);
  assert.match(line, /no run directory was kept: run the same command again/);
  await assertNothingLeft(out, db);
});
