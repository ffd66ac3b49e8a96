// End-to-end checks of what a bench run must show: the command against the reference server over
// real HTTP on loopback.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { readDecisions } from "../lib/record/mod.ts";
import type { RunJson } from "../lib/record/mod.ts";
import { filesUnder, ROOT, runScript } from "./bench_cli_helpers.ts";

async function readRun(dir: string): Promise<RunJson> {
  return JSON.parse(await Deno.readTextFile(`${dir}/run.json`));
}

Deno.test("bench against the oracle scores KL 0, Brier 0 and accuracy within 1965–1999 of 2000", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const out = await Deno.makeTempDir();
  // workflows/reference.ts has no thresholds; --base-url replaces its embedded server.
  const r = await runScript("bench.ts", [
    "workflows/reference.ts",
    "--base-url",
    server.url,
    "--out",
    out,
    "--no-db",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const stdout = r.lines.join("\n");
  const run = await readRun(out);
  const s = { ...run.summary!, ...run.summary!.metrics } as {
    decisions: number;
    accuracy: number;
    kl: number;
    brier: number;
  };
  assert.equal(run.status, "completed");
  assert.equal(s.decisions, 2000);
  assert.ok(Math.abs(s.kl) < 1e-9 && Math.abs(s.brier) < 1e-9, `KL ${s.kl} Brier ${s.brier}`);
  const correct = Math.round(s.accuracy * 2000);
  assert.ok(correct >= 1965 && correct <= 1999, `correct ${correct}`);
  assert.match(
    stdout,
    /Typed Decisions \(LocalLLaMA\/typed-decisions, revision e039ebf, Apache-2\.0\)/,
  );
  assert.match(stdout, /By question type/);
  assert.match(stdout, /Reliability/);
  assert.match(stdout, /rating +★★★/);
  const records = await readDecisions(`${out}/decisions.jsonl`);
  assert.equal(records.length, 2000);
  assert.equal(new Set(records.map((d) => `${d.case}/${d.question}`)).size, 2000);
});

Deno.test("bench against a faulty server ends incomplete, counts failures as misses with their kind, exits non-zero", async () => {
  await using server = await startReferenceServer({
    predictor: "oracle",
    faults: "malformed=0.05,http500=0.05,out_of_range=0.03",
    seed: 7,
  });
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--out",
    out,
    "--no-db",
  ]);
  assert.notEqual(r.code, 0);
  const run = await readRun(out);
  assert.equal(run.status, "incomplete");
  const records = await readDecisions(`${out}/decisions.jsonl`);
  assert.equal(records.length, 2000, "every decision is recorded, failed or not");
  const failed = records.filter((d) => d.error !== null);
  assert.ok(failed.length > 0);
  for (const d of failed) {
    assert.equal(d.correct, false);
    assert.equal(d.predicted, null);
    assert.ok(["malformed", "unavailable"].includes(d.error!.kind), d.error!.kind);
  }
  assert.ok(failed.some((d) => d.error!.kind === "malformed"));
  assert.ok(records.some((d) => d.attempts > 1), "http500 faults were retried and recorded");
  const s = { ...run.summary!, ...run.summary!.metrics };
  assert.equal(s.errors, failed.length);
  const correct = records.filter((d) => d.correct).length;
  assert.equal(s.accuracy, correct / 2000, "errors stay in the accuracy denominator");
  assert.match(r.lines.join("\n"), /status +incomplete/);
});

Deno.test("a key-protected server stops a run without the key; with it the key appears nowhere", async () => {
  const key = "sk-decibench-test-7f3a9c1e5b";
  await using server = await startReferenceServer({ predictor: "uniform", apiKey: key });
  const without = await Deno.makeTempDir();
  const r1 = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--out",
    without,
    "--no-db",
    "--limit",
    "20",
  ], { LLAMA_API_KEY: "" });
  assert.notEqual(r1.code, 0);
  assert.match(r1.stderr, /Cannot authenticate/);
  // Nothing was answered: no run is left behind to resume.
  await assert.rejects(Deno.stat(`${without}/run.json`), Deno.errors.NotFound);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(without)).catch(() => []), []);
  assert.match(r1.stderr, /nothing was answered, so no run directory was kept/);

  const withKey = await Deno.makeTempDir();
  const r2 = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--out",
    withKey,
    "--no-db",
    "--limit",
    "20",
    "--json",
  ], { LLAMA_API_KEY: key });
  const run = await readRun(withKey);
  assert.equal(run.status, "completed", r2.stderr);
  for (const text of [r1.lines.join("\n"), r1.stderr, r2.lines.join("\n"), r2.stderr]) {
    assert.ok(!text.includes(key));
  }
  for (const [path, text] of await filesUnder(withKey)) assert.ok(!text.includes(key), path);
});

Deno.test("an edited vendored file stops the run before any request", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const data = await Deno.makeTempDir();
  for await (const e of Deno.readDir(`${ROOT}vendor/typed-decisions`)) {
    await Deno.copyFile(`${ROOT}vendor/typed-decisions/${e.name}`, `${data}/${e.name}`);
  }
  const gz = await Deno.readFile(`${data}/test.jsonl.gz`);
  const text = await new Response(
    new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
  const edited = text.replace('"label": "continue"', '"label": "stop"');
  assert.notEqual(edited, text);
  const recompressed = new Uint8Array(
    await new Response(
      new Blob([edited]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  await Deno.writeFile(`${data}/test.jsonl.gz`, recompressed);
  const out = await Deno.makeTempDir();
  const r = await runScript(
    "bench.ts",
    ["workflows/llama.ts", "--base-url", server.url, "--out", `${out}/run`],
    { DECIBENCH_DATASET_DIR: data },
  );
  assert.equal(r.code, 3);
  assert.match(r.stderr, /test\.jsonl\.gz/);
  assert.match(r.stderr, /deno task vendor/);
  assert.equal(server.stats().requests, 0, "no request was sent");
});

Deno.test("bench --dry-run prints every exact request body and sends nothing", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--dry-run",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const bodies = r.lines.filter((l) => l.startsWith("{"));
  assert.equal(bodies.length, 400);
  const first = JSON.parse(bodies[0]!);
  assert.deepEqual(Object.keys(first), ["model", "state", "questions"]);
  assert.equal(typeof first.state, "object");
  assert.equal(Object.keys(first.questions).length, 5);
  assert.match(r.lines.join("\n"), new RegExp(`POST ${server.url}/v1/systemone`));
  assert.equal(server.stats().requests, 0);
});

Deno.test("bench stops at the first unsupported-endpoint answer with the spec's message", async () => {
  await using server = await startReferenceServer({ predictor: "uniform", faults: "http404=1" });
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [
    "workflows/llama.ts",
    "--base-url",
    server.url,
    "--out",
    out,
    "--no-db",
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /does not serve decision models/);
  assert.match(r.stderr, /\/v1\/systemone/);
  assert.ok(server.stats().decisionRequests <= 8, "the run stopped sending after the first 404");
  await assert.rejects(Deno.stat(`${out}/run.json`), Deno.errors.NotFound);
});

Deno.test("bench refuses bad input with one clear message and a usage exit status", async (t) => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(
    `${dir}/unknown_field.ts`,
    `export default { name: "x", endpoint: { baseUrl: "http://127.0.0.1:1", retrys: 3 } };`,
  );
  await Deno.writeTextFile(
    `${dir}/bad_type.ts`,
    `export default { name: "x", endpoint: { baseUrl: "http://127.0.0.1:1" }, parallel: "four" };`,
  );
  const table: [string, string[], RegExp][] = [
    ["missing file", [`${dir}/nope.ts`], /file not found/],
    [
      "unknown field",
      [`${dir}/unknown_field.ts`],
      /field "endpoint" has an unknown key "retrys" \(did you mean "retries"\?\)/,
    ],
    ["wrong type", [`${dir}/bad_type.ts`], /field "parallel"/],
    [
      "unknown flag",
      ["--paralel", "3"],
      /Cannot use "--paralel": no such option; did you mean --parallel\?/,
    ],
    ["bad number", ["--parallel", "zero"], /Cannot use --parallel "zero": it is not a number/],
  ];
  for (const [name, args, pattern] of table) {
    await t.step(name, async () => {
      const r = await runScript("bench.ts", args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, pattern);
    });
  }
  await t.step("bad URL", async () => {
    const r = await runScript("bench.ts", ["workflows/llama.ts", "--base-url", "ftp://x/"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not http or https/);
  });
  await t.step("unreachable server", async () => {
    const out = await Deno.makeTempDir();
    const r = await runScript("bench.ts", [
      "workflows/llama.ts",
      "--base-url",
      "http://127.0.0.1:9",
      "--limit",
      "3",
      "--out",
      out,
      "--no-db",
    ]);
    assert.equal(r.code, 1);
    const records = await readDecisions(`${out}/decisions.jsonl`);
    assert.ok(records.every((d) => d.error?.kind === "network"));
  });
});

Deno.test("a full disk stops the run with one message naming the file and how to finish it", async () => {
  const out = await Deno.makeTempDir();
  // Every write to /dev/full fails with ENOSPC, as on a full disk.
  await Deno.symlink("/dev/full", `${out}/decisions.jsonl`);
  const r = await runScript("bench.ts", ["--out", out, "--limit", "5", "--no-db"]);
  assert.equal(r.code, 1);
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("decibench:"));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /Cannot write ".*decisions\.jsonl": No space left on device/);
  assert.match(lines[0]!, /--resume/);
});
