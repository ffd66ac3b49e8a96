// End-to-end checks of the engines issue over real HTTP on loopback: pcdServer against the
// oracle scores exactly as System One does on all 2,000 decisions, every provider preset runs
// against the reference server's emulated envelopes, and the engine comparison runs from the
// bench command and prints what each engine would send on --dry-run.
import assert from "node:assert/strict";
import type { DecisionRecord, RunJson } from "../lib/record/mod.ts";
import { inCaseOrder, readDecisions } from "../lib/record/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { loadWorkflow, runBenchmark } from "../lib/workflow/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";

async function readRun(dir: string): Promise<RunJson> {
  return JSON.parse(await Deno.readTextFile(`${dir}/run.json`));
}

type Headline = { decisions: number; accuracy: number; kl: number; brier: number };

Deno.test("bench workflows/pcd.ts against the oracle scores exactly as System One on all 2,000 decisions, recorded uncalibrated", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const pcdDir = await Deno.makeTempDir();
  const soDir = await Deno.makeTempDir();
  const pcd = await runScript("bench.ts", [
    "workflows/pcd.ts",
    "--base-url",
    server.url,
    "--out",
    pcdDir,
    "--no-db",
  ]);
  assert.equal(pcd.code, 0, pcd.stderr);
  const so = await runScript("bench.ts", [
    "workflows/reference.ts",
    "--base-url",
    server.url,
    "--out",
    soDir,
    "--no-db",
  ]);
  assert.equal(so.code, 0, so.stderr);

  const pcdRun = await readRun(pcdDir);
  const soRun = await readRun(soDir);
  const p = { ...pcdRun.summary!, ...pcdRun.summary!.metrics } as Headline;
  const s = { ...soRun.summary!, ...soRun.summary!.metrics } as Headline;
  assert.equal(pcdRun.status, "completed");
  assert.equal(pcdRun.spec.engine, "pcd");
  assert.equal(p.decisions, 2000);
  assert.equal(p.kl, 0);
  assert.equal(p.brier, 0);
  assert.ok(Math.abs(s.kl) < 1e-9 && Math.abs(s.brier) < 1e-9);
  assert.equal(p.accuracy, s.accuracy);

  const pcdRecords = await readDecisions(`${pcdDir}/decisions.jsonl`);
  const soRecords = await readDecisions(`${soDir}/decisions.jsonl`);
  assert.equal(pcdRecords.length, 2000);
  const key = (r: DecisionRecord) => `${r.case}/${r.question}`;
  const soByKey = new Map(soRecords.map((r) => [key(r), r]));
  for (const r of pcdRecords) {
    const twin = soByKey.get(key(r));
    assert.ok(twin, key(r));
    assert.equal(r.answer, twin.answer, key(r));
    assert.equal(r.correct, twin.correct, key(r));
    assert.deepEqual(Object.keys(r.predicted ?? {}), Object.keys(twin.predicted ?? {}), key(r));
    assert.equal(r.calibrated, false, key(r));
    assert.equal(twin.calibrated, true, key(r));
  }
  // A score's expected level is computed from pcdServer's probabilities.
  const score = pcdRecords.find((r) => r.type === "score");
  const expected = Object.values(score?.predicted ?? {}).reduce((sum, q, i) => sum + i * q, 0);
  assert.ok(Math.abs((score?.native?.score as number) - expected) < 1e-12);

  assert.equal(pcdRun.spec.calibrated, false);
  assert.equal(soRun.spec.calibrated, true);
  assert.match(
    pcd.lines.join("\n"),
    /calibration +this engine's probabilities are uncalibrated: confidence thresholds do not transfer/,
  );
  assert.doesNotMatch(so.lines.join("\n"), /uncalibrated/);
  const report = await Deno.readTextFile(`${pcdDir}/report.md`);
  assert.match(
    report,
    /\*\*Uncalibrated engine\.\*\* .*confidence thresholds tuned on a calibrated engine do not transfer/,
  );
});

Deno.test("every provider preset runs against the reference server's emulated envelopes", async (t) => {
  await using server = await startReferenceServer({ predictor: "oracle", apiKey: "sk-test-key" });
  const env = (name: string) =>
    [
        "TYPESAFE_API_KEY",
        "OPENROUTER_API_KEY",
        "CLOUDFLARE_API_TOKEN",
        "OLLAMA_API_KEY",
        "PCD_API_KEY",
      ]
        .includes(name)
      ? "sk-test-key"
      : undefined;
  const presets: [string, string, string, string][] = [
    // workflow, base URL, engine, endpoint the run records
    ["ollama", server.url, "ollama", "/v1/systemone"],
    ["typesafe", server.url, "systemone", "/v1/systemone"],
    ["openrouter", `${server.url}/api/v1`, "systemone", "/api/v1/systemone"],
    ["clef", server.url, "clef", "/ai/run/@cf/cloudflare/clef"],
    [
      "clef",
      `${server.url}/client/v4/accounts/0123abcd`,
      "clef",
      "/client/v4/accounts/0123abcd/ai/run/@cf/cloudflare/clef",
    ],
    ["pcd", server.url, "pcd", "/v1/pcd/decode"],
  ];
  for (const [name, baseUrl, engine, path] of presets) {
    await t.step(`${name} at ${baseUrl.slice(server.url.length) || "/"}`, async () => {
      const workflow = await loadWorkflow(`workflows/${name}.ts`);
      const result = await runBenchmark(workflow, {
        baseUrl,
        limit: 6,
        outDir: await Deno.makeTempDir(),
        dbPath: null,
        env,
      });
      assert.equal(result.status, "completed", result.fatal ?? "");
      assert.equal(result.run.spec.engine, engine);
      assert.ok(result.run.spec.endpoint.endsWith(path), result.run.spec.endpoint);
      const records = await readDecisions(`${result.dir}/decisions.jsonl`);
      assert.equal(records.length, 30);
      assert.ok(records.every((r) => r.error === null && r.endpoint === name));
      // Oracle answers: KL 0 everywhere but clef, whose 4-decimal rounding costs a little.
      if (engine === "clef") assert.ok((result.summary.metrics.kl ?? 1) < 1e-3);
      else assert.ok((result.summary.metrics.kl ?? 1) < 1e-9);
      if (name === "openrouter") {
        for (const r of records) {
          assert.match(r.response_id ?? "", /^gen-/);
          assert.equal(r.provider, "decibench-reference");
          assert.ok((r.cost ?? 0) > 0);
        }
      } else {
        assert.ok(records.every((r) => r.cost === undefined && r.provider === undefined));
      }
    });
  }
  await t.step("a required key that is unset stops before any request", async () => {
    const workflow = await loadWorkflow("workflows/typesafe.ts");
    await assert.rejects(
      runBenchmark(workflow, { baseUrl: server.url, limit: 1, env: () => undefined, dbPath: null }),
      /environment variable "TYPESAFE_API_KEY" is not set/,
    );
  });
});

Deno.test("bench workflows/compare-engines.ts --dry-run prints the exact bytes each engine would send", async () => {
  const r = await runScript("bench.ts", [
    "workflows/compare-engines.ts",
    "--limit",
    "2",
    "--dry-run",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /dry run: 4 requests printed, nothing sent/);
  const blocks = r.lines.join("\n").trim().split("\n\n");
  assert.equal(blocks.length, 4);
  assert.match(
    blocks[0] ?? "",
    /^# systemone-fitted · \S+\nPOST http:\/\/127\.0\.0\.1:0\/v1\/systemone\n\{"model":/,
  );
  assert.match(
    blocks[2] ?? "",
    /^# pcd-oracle · \S+\nPOST http:\/\/127\.0\.0\.1:0\/v1\/pcd\/decode\n\{"context":/,
  );
  const body = JSON.parse((blocks[2] ?? "").split("\n")[2] ?? "");
  assert.equal(typeof body.context, "string");
  assert.equal(body.fields.length, 5);
});

Deno.test("bench workflows/compare-engines.ts compares the engines side by side", async () => {
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [
    "workflows/compare-engines.ts",
    "--limit",
    "12",
    "--out",
    out,
    "--no-db",
  ]);
  assert.equal(r.code, 0, r.stderr);
  for (
    const heading of [
      /Metrics per engine \(95% bootstrap intervals/,
      /Accuracy against systemone-fitted \(paired, same decisions\)/,
      /Latency, tokens and cost per engine/,
      /all engines agree on \d+ of 60 decisions every engine answered \(\d+\.\d% \[/,
      /per question/,
      /pcd-oracle is uncalibrated/,
    ]
  ) assert.match(r.lines.join("\n"), heading);
  const comparison = JSON.parse(await Deno.readTextFile(`${out}/comparison.json`));
  assert.deepEqual(comparison.engines.map((e: { name: string }) => e.name), [
    "systemone-fitted",
    "pcd-oracle",
  ]);
  assert.deepEqual(comparison.engines.map((e: { calibrated: boolean }) => e.calibrated), [
    true,
    false,
  ]);
  // Agreement recomputed from the two runs' records.
  const a = await readDecisions(`${out}/systemone-fitted/decisions.jsonl`);
  const b = await readDecisions(`${out}/pcd-oracle/decisions.jsonl`);
  const same = a.filter((d, i) => d.answer === b[i]?.answer).length;
  assert.equal(comparison.agreement.overall.agree, same);
  assert.equal(comparison.agreement.overall.n, 60);
  assert.ok(b.every((d) => d.endpoint === "pcd-oracle" && d.calibrated === false));
  assert.match(await Deno.readTextFile(`${out}/comparison.md`), /^# decibench engine comparison/);
  assert.ok((await Deno.stat(`${out}/pcd-oracle/report.md`)).isFile);
});

Deno.test("a script that imports mod.ts compares engines (docs/engines.md example)", async () => {
  const { compareEngines, engineComparisonText, validateWorkflow } = await import("../mod.ts");
  const workflow = validateWorkflow({
    name: "uniform-vs-oracle",
    endpoints: [
      { name: "systemone-uniform", reference: { predictor: "uniform" } },
      { name: "pcd-oracle", engine: "pcd", reference: { predictor: "oracle" } },
    ],
    cases: { limit: 20 },
  }, "compare.ts");
  const comparison = await compareEngines(workflow, {
    outDir: await Deno.makeTempDir(),
    dbPath: null,
  });
  const [uniform, oracle] = comparison.engines;
  assert.equal(uniform?.summary.decisions, 100);
  assert.equal(oracle?.summary.metrics.kl, 0);
  assert.ok((uniform?.summary.metrics.kl ?? 0) > 0.3, "uniform answers are far from gold");
  // Agreement and the McNemar counts are recomputed from the two runs' records.
  const [a, b] = await Promise.all(
    comparison.runs.slice(0, 2).map(async (r) =>
      inCaseOrder(await readDecisions(`${r.dir}/decisions.jsonl`))
    ),
  ) as [readonly DecisionRecord[], readonly DecisionRecord[]];
  const same = a.filter((d, i) => d.answer === b[i]?.answer).length;
  assert.equal(comparison.agreement?.overall.agree, same);
  assert.equal(
    oracle?.versusFirst?.mcnemar.onlyA,
    a.filter((d, i) => d.correct && !b[i]?.correct).length,
  );
  assert.match(engineComparisonText(comparison), /pcd-oracle is uncalibrated/);
  assert.match(
    engineComparisonText(comparison, { markdown: true }),
    /^# decibench engine comparison/,
  );
});
