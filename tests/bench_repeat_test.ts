// `deno task bench … --repeat K [--parallel-sweep …]` end to end: real `bench.ts` subprocesses
// against `deno task serve` (deterministic, or with `--faults jitter=0.02`) over loopback.
import assert from "node:assert/strict";
import { readDecisions, type RepeatRecord, type RunJson } from "../lib/record/mod.ts";
import { startServe } from "./live_helpers.ts";
import { decisionsWithoutLatency, runScript } from "./bench_cli_helpers.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { loadWorkflow, runBenchmark } from "../lib/workflow/mod.ts";

async function readRun(dir: string): Promise<RunJson> {
  return JSON.parse(await Deno.readTextFile(`${dir}/run.json`));
}

async function readRepeats(dir: string): Promise<RepeatRecord[]> {
  const text = await Deno.readTextFile(`${dir}/repeats.jsonl`);
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

async function bench(
  url: string,
  args: string[],
): Promise<{ dir: string; code: number; stderr: string }> {
  const dir = await Deno.makeTempDir();
  // workflows/reference.ts has no thresholds and asks at parallel 8; --base-url replaces its
  // embedded server.
  const r = await runScript("bench.ts", [
    "workflows/reference.ts",
    "--base-url",
    url,
    "--no-db",
    "--out",
    dir,
    ...args,
  ]);
  return { dir, code: r.code, stderr: r.stderr };
}

Deno.test("--repeat 3 against `serve --faults jitter=0.02` reports flips and drift", async () => {
  const server = await startServe(["--predictor", "fitted", "--faults", "jitter=0.02"]);
  try {
    const { dir, code, stderr } = await bench(server.url, ["--repeat", "3"]);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /repeat pass 2 at parallel 8: 400 cases/);
    const run = await readRun(dir);
    const stability = run.stability!;
    assert.equal(stability.repeat, 3);
    assert.deepEqual(stability.parallel, [8]);
    assert.equal(stability.complete, true);
    // two repeat passes at parallel 8 (the official pass is the first of the three)
    const repeats = await readRepeats(dir);
    assert.equal(repeats.length, 4000);
    assert.deepEqual([...new Set(repeats.map((r) => `${r.parallel}/${r.pass}`))], ["8/2", "8/3"]);
    const overall = stability.overall;
    assert.equal(overall.decisions, 2000);
    assert.equal(overall.repeats, 4000);
    assert.ok(overall.flipped > 0 && overall.flipRate! > 0, `flips ${overall.flipped}`);
    assert.ok(
      overall.drift!.median > 0.005 && overall.drift!.median < 0.06,
      `${overall.drift!.median}`,
    );
    assert.ok(
      overall.drift!.max > overall.drift!.p95 && overall.drift!.p95 > overall.drift!.median,
    );
    assert.equal(stability.byQuestion.length, 20);
    assert.equal(stability.byQuestion.reduce((n, r) => n + r.decisions, 0), 2000);
    // the reports name the section
    assert.match(await Deno.readTextFile(`${dir}/report.md`), /## Stability under load/);
  } finally {
    await server.stop();
  }
});

Deno.test("--repeat 3 --parallel-sweep 1,4,16 against the deterministic server: exactly 0", async () => {
  const server = await startServe(["--predictor", "fitted"]);
  try {
    const { dir, code, stderr } = await bench(server.url, [
      "--limit",
      "40",
      "--repeat",
      "3",
      "--parallel-sweep",
      "1,4,16",
    ]);
    assert.equal(code, 0, stderr);
    const run = await readRun(dir);
    const stability = run.stability!;
    assert.deepEqual(stability.parallel, [1, 4, 16]);
    const repeats = await readRepeats(dir);
    // 8 is not swept: three passes at each of 1, 4 and 16, 40 cases × 5 questions each
    assert.equal(repeats.length, 9 * 200);
    for (const row of [stability.overall, ...stability.byParallel, ...stability.byQuestion]) {
      assert.equal(row.flipped, 0, row.key);
      assert.equal(row.flipRate, 0, row.key);
      assert.deepEqual(row.drift, { median: 0, p95: 0, max: 0 }, row.key);
    }
    assert.deepEqual(stability.byParallel.map((r) => [r.key, r.decisions, r.repeats]), [
      ["parallel 1", 200, 600],
      ["parallel 4", 200, 600],
      ["parallel 16", 200, 600],
    ]);
  } finally {
    await server.stop();
  }
});

Deno.test("--repeat leaves the official scores to the first pass", async () => {
  // One request at a time: the jitter of the n-th request is the same on both servers.
  const plain = await startServe([
    "--predictor",
    "fitted",
    "--faults",
    "jitter=0.05",
    "--seed",
    "3",
  ]);
  const repeated = await startServe([
    "--predictor",
    "fitted",
    "--faults",
    "jitter=0.05",
    "--seed",
    "3",
  ]);
  try {
    const a = await bench(plain.url, ["--limit", "30", "--parallel", "1"]);
    const b = await bench(repeated.url, ["--limit", "30", "--parallel", "1", "--repeat", "4"]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.deepEqual(await decisionsWithoutLatency(b.dir), await decisionsWithoutLatency(a.dir));
    const runA = await readRun(a.dir);
    const runB = await readRun(b.dir);
    const { latency: _a, ...summaryA } = runA.summary!;
    const { latency: _b, ...summaryB } = runB.summary!;
    assert.deepEqual(summaryB, summaryA);
    assert.equal(runA.stability, undefined);
    assert.ok(runB.stability!.overall.flipped > 0);
  } finally {
    await plain.stop();
    await repeated.stop();
  }
});

Deno.test("bench refuses bad --repeat / --parallel-sweep values with exit 2", async (t) => {
  const cases: [string[], RegExp][] = [
    [
      ["--parallel-sweep", "1,4"],
      /Cannot use --parallel-sweep without --repeat: .*; add --repeat K/,
    ],
    [["--repeat", "0"], /Cannot use --repeat "0": it is too small; give a whole number ≥ 1/],
    [
      ["--repeat", "2", "--parallel-sweep", "1,x"],
      /Cannot use --parallel-sweep "1,x": give a comma list of whole numbers ≥ 1, e\.g\. 1,4,16/,
    ],
    [["--repeat", "2", "--parallel-sweep", "0"], /Cannot use --parallel-sweep "0"/],
  ];
  cases.push([
    ["workflows/compare-engines.ts", "--repeat", "2"],
    /Cannot use --repeat with a workflow of several endpoints/,
  ]);
  for (const [args, message] of cases) {
    await t.step(args.join(" "), async () => {
      const workflow = args[0]?.startsWith("workflows/") ? [] : ["workflows/reference.ts"];
      const r = await runScript("bench.ts", [...workflow, "--no-db", ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  }
});

Deno.test("Ctrl+C during the repeated passes keeps the official decisions and marks stability incomplete", async () => {
  await using server = await startReferenceServer({ predictor: "uniform", latencyMs: 5 });
  const stop = new AbortController();
  const dir = `${await Deno.makeTempDir()}/run`;
  const result = await runBenchmark(await loadWorkflow("workflows/reference.ts"), {
    baseUrl: server.url,
    limit: 20,
    outDir: dir,
    dbPath: null,
    repeat: 50,
    signal: stop.signal,
    graceMs: 100,
    onEvent: (event) => {
      if (event.event === "repeat" && event.pass === 3) stop.abort();
    },
  });
  assert.equal(result.status, "interrupted");
  assert.equal(result.run.stability?.complete, false);
  const records = await readDecisions(`${result.dir}/decisions.jsonl`);
  assert.equal(records.length, 100);
  assert.ok(records.every((r) => r.error === null));
  const repeats = await readRepeats(dir);
  assert.ok(repeats.length >= 200 && repeats.length < 49 * 100, `${repeats.length} repeats`);
  assert.equal(result.run.stability?.overall.flipped, 0);
});
