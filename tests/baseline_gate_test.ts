// Thresholds against a baseline run: Typed Decisions answered by the embedded reference server's
// `fitted` (the baseline) and `uniform` predictors, compared on their shared decisions with the
// paired bootstrap.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { loadWorkflow, runBenchmark, WorkflowError } from "../lib/workflow/mod.ts";
import { thresholdMessage } from "../lib/report/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";

/** A Typed Decisions workflow (the first 200 test cases) answered by an embedded predictor. */
async function workflowFile(
  dir: string,
  name: string,
  predictor: string,
  thresholds: string[],
  questions?: string[],
): Promise<string> {
  const text = [
    `name: ${name}`,
    `endpoint: { reference: { predictor: ${predictor} }, model: decider }`,
    `cases: { limit: 200${questions ? `, questions: ${JSON.stringify(questions)}` : ""} }`,
    "parallel: 4",
    `thresholds:${thresholds.length ? "\n" + thresholds.join("\n") : " []"}`,
    "",
  ].join("\n");
  const path = join(dir, `${name}.yaml`);
  await Deno.writeTextFile(path, text);
  return path;
}

async function run(file: string, dir: string) {
  const workflow = await loadWorkflow(file);
  return await runBenchmark(workflow, {
    outDir: dir,
    dbPath: null,
    reports: false,
    workflowFile: file,
  });
}

Deno.test("a threshold against a baseline passes for the same model and fails for a worse one", async () => {
  const tmp = await Deno.makeTempDir();
  const base = join(tmp, "fitted-run");
  const baseline = await run(await workflowFile(tmp, "base", "fitted", []), base);
  assert.equal(baseline.status, "completed");

  const against = [
    `  - { metric: accuracy, baseline: ${JSON.stringify(base)}, margin: 0.01 }`,
    `  - { metric: brier, baseline: ${
      JSON.stringify(base)
    }, margin: 0.01, lane: customer_service }`,
    `  - { metric: accuracy, baseline: ${JSON.stringify(base)}, margin: 0.01, question: risk }`,
  ];
  const same = await run(await workflowFile(tmp, "same", "fitted", against), join(tmp, "same"));
  assert.deepEqual(same.thresholds.map((t) => t.pass), [true, true, true]);
  const [sameAccuracy] = same.thresholds;
  assert.equal(sameAccuracy?.baseline, base);
  assert.equal(sameAccuracy?.limit, -0.01);
  assert.deepEqual(sameAccuracy?.interval, [0, 0]);
  assert.ok((sameAccuracy?.shared ?? 0) > 500, `${sameAccuracy?.shared}`);
  const passed = thresholdMessage(sameAccuracy!);
  assert.match(passed, /95% paired interval \[0, 0\]/);

  const worse = await run(await workflowFile(tmp, "worse", "uniform", against), join(tmp, "worse"));
  assert.equal(worse.status, "completed");
  assert.deepEqual(worse.thresholds.map((t) => t.pass), [false, false, false]);
  const [accuracy, brier] = worse.thresholds;
  // uniform is far less accurate than the fitted model: the whole interval is below −margin.
  assert.ok(accuracy!.interval![1] < -0.01 && accuracy!.value === accuracy!.interval![0]);
  assert.ok(accuracy!.estimate! < accuracy!.interval![1] + 1e-12);
  // Brier is lower-is-better: mirrored (baseline − this), so worse is negative here too.
  assert.ok(brier!.interval![1] < 0, JSON.stringify(brier));
  const failed = thresholdMessage(accuracy!);
  assert.match(
    failed,
    /^accuracy against baseline .+ \(this run − baseline\): -0\.\d+, 95% paired interval \[-0\.\d+, -0\.\d+\]; lower end -0\.\d+ < -0\.01 \(margin 0\.01\): failed$/,
  );
  assert.match(
    thresholdMessage(brier!),
    /^brier in lane customer_service against baseline .+ \(baseline − this run: lower is better\): -0\.\d+, 95% paired interval \[/,
  );
  // run.json keeps the comparison.
  const saved = JSON.parse(await Deno.readTextFile(join(tmp, "worse", "run.json")));
  assert.deepEqual(saved.thresholds[0].interval, accuracy!.interval);

  // The other way round the fitted model beats its uniform baseline on every threshold.
  const onUniform = against.map((t) =>
    t.replace(JSON.stringify(base), JSON.stringify(join(tmp, "worse")))
  );
  const better = await run(
    await workflowFile(tmp, "better", "fitted", onUniform),
    join(tmp, "better"),
  );
  assert.deepEqual(better.thresholds.map((t) => t.pass), [true, true, true]);
  assert.ok(better.thresholds[1]!.interval![0] > 0);
});

Deno.test("a baseline made on other questions is refused before any request (exit 2)", async () => {
  const tmp = await Deno.makeTempDir();
  const base = join(tmp, "every-question");
  await run(await workflowFile(tmp, "base", "uniform", []), base);
  const file = await workflowFile(
    tmp,
    "two",
    "uniform",
    [`  - { metric: accuracy, baseline: ${JSON.stringify(base)}, margin: 0.01 }`],
    ["risk", "urgency"],
  );
  await assert.rejects(
    run(file, join(tmp, "never")),
    (error: Error) =>
      error instanceof WorkflowError &&
      /field "thresholds\.0\.baseline": the baseline ".+" cannot be compared with this run: it asked other questions \(every question; this run: risk, urgency\)/
        .test(error.message),
  );
  await using server = await startReferenceServer({ predictor: "uniform" });
  const r = await runScript("bench.ts", [
    file,
    "--base-url",
    server.url,
    "--no-db",
    "--out",
    join(tmp, "cli"),
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /cannot be compared with this run/);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /^llamacpp:n_decode_total 0$/m);
  await assert.rejects(Deno.stat(join(tmp, "cli")), Deno.errors.NotFound);

  // A threshold against a baseline takes no op, limit or bound; a margin needs a baseline.
  const bad = await workflowFile(tmp, "bad", "uniform", [
    `  - { metric: accuracy, baseline: ${JSON.stringify(base)}, op: ">=", limit: 0.5 }`,
    `  - { metric: accuracy, margin: 0.01, op: ">=", limit: 0.5 }`,
  ]);
  await assert.rejects(
    loadWorkflow(bad),
    /thresholds\.0\.op.*drop op, limit and bound[\s\S]*thresholds\.1\.margin/,
  );
});
