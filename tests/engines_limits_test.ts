// Runs over real HTTP on loopback where a case cannot fit an engine's limits: the case is recorded
// with error kind "limit" and never sent (nothing truncated), while the other cases are answered.
// Also dohnuts' `native` block end to end: kept in decisions.jsonl, a low fit_mass flagged.
import assert from "node:assert/strict";
import { optionsOf } from "../lib/dataset/questions.ts";
import type { Case, Question } from "../lib/dataset/schemas.ts";
import { loadDataset } from "../lib/dataset/mod.ts";
import { readDecisions } from "../lib/record/mod.ts";
import { markdownReport, terminalReport } from "../lib/report/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import {
  prepareEndpoint,
  runBenchmark,
  runPrepared,
  validateWorkflow,
  type WorkflowInput,
} from "../lib/workflow/mod.ts";

const dataset = await loadDataset();

/** Three real cases, the middle one with a state too large for the engine. */
function casesWithOneTooLarge(padding: number): Case[] {
  const [a, b, c] = dataset.cases as [Case, Case, Case];
  return [a, { ...b, state: { ...(b.state as object), attachment: "x".repeat(padding) } }, c];
}

async function runOn(
  engine: "pcd" | "ollama",
  cases: Case[],
  baseUrl: string,
): Promise<Awaited<ReturnType<typeof runPrepared>>> {
  const input: WorkflowInput = {
    name: `limits-${engine}`,
    endpoint: { name: engine, engine, baseUrl, model: "decider-0.8b", retries: 0 },
  };
  const workflow = validateWorkflow(input, "test");
  const endpoint = await prepareEndpoint(workflow.endpoint!, {});
  try {
    return await runPrepared(workflow, { dataset, cases, endpoint }, {
      outDir: await Deno.makeTempDir(),
      dbPath: null,
    });
  } finally {
    await endpoint.close();
  }
}

Deno.test("a pcd case over the 64 KiB context is recorded as kind limit and never sent", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const cases = casesWithOneTooLarge(70_000);
  const result = await runOn("pcd", cases, server.url);
  assert.equal(result.status, "incomplete");
  const records = await readDecisions(`${result.dir}/decisions.jsonl`);
  const refused = records.filter((r) => r.case === cases[1]?.id);
  assert.equal(refused.length, 5);
  for (const r of refused) {
    assert.equal(r.error?.kind, "limit");
    assert.match(
      r.error?.message ?? "",
      /its context is [\d,]+ bytes of JSON text, over pcdServer's limit of 65,536 bytes \(64 KiB\); the state is never truncated/,
    );
    assert.equal(r.attempts, 0);
    assert.equal(r.correct, false);
    assert.equal(r.predicted, null);
  }
  const answered = records.filter((r) => r.case !== cases[1]?.id);
  assert.equal(answered.length, 10);
  assert.ok(answered.every((r) => r.error === null && r.kl === 0 && r.calibrated === false));
  assert.equal(server.stats().decisionRequests, 2, "the refused case was never sent");
  const onDisk = await readDecisions(`${result.dir}/decisions.jsonl`);
  assert.equal(onDisk.filter((r) => r.error?.kind === "limit").length, 5);
});

Deno.test("an Ollama body over 64 KiB is recorded as kind limit and never sent", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const cases = casesWithOneTooLarge(66_000);
  const result = await runOn("ollama", cases, server.url);
  const records = await readDecisions(`${result.dir}/decisions.jsonl`);
  const refused = records.filter((r) => r.error !== null);
  assert.deepEqual([...new Set(refused.map((r) => r.case))], [cases[1]?.id]);
  assert.ok(refused.every((r) => r.error?.kind === "limit" && r.attempts === 0));
  assert.match(
    refused[0]?.error?.message ?? "",
    /^Cannot send the case to Ollama: the request body is [\d,]+ bytes, over Ollama's limit of 65,536 bytes/,
  );
  assert.equal(server.stats().decisionRequests, 2);
  assert.equal(result.run.spec.engine, "ollama");
});

Deno.test("Ollama without a model name is refused before the run starts", async () => {
  const workflow = validateWorkflow({
    name: "ollama-nameless",
    endpoint: { engine: "ollama", baseUrl: "http://127.0.0.1:9" },
  }, "test");
  await assert.rejects(
    runBenchmark(workflow, { limit: 1, outDir: await Deno.makeTempDir(), dbPath: null }),
    /Cannot use Ollama: it needs the model's name \(got "default"\); set endpoint.model in the workflow or pass --model/,
  );
});

/** A dohnuts-like System One server: uniform answers, scores with a `native` block. */
function dohnuts(fitMass: number): Deno.HttpServer<Deno.NetAddr> & { url: string } {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    const body = await request.json() as { questions: Record<string, Question> };
    const answers: Record<string, unknown> = {};
    for (const [name, question] of Object.entries(body.questions)) {
      const options = optionsOf(question);
      if (question.type === "noul") {
        answers[name] = { type: "noul", noul: 0.5 };
        continue;
      }
      const probabilities = Object.fromEntries(options.map((o) => [o, 1 / options.length]));
      const answer: Record<string, unknown> = { type: question.type, probabilities, confidence: 0 };
      if (question.type === "score") {
        answer.native = {
          confidence: 1 / options.length,
          certainty: 0,
          level_fit: options.map(() => fitMass / options.length),
          fit_mass: fitMass,
        };
      }
      answers[name] = answer;
    }
    return Response.json({
      model: "decider-2b",
      answers,
      usage: { input_tokens: 7, output_tokens: 0 },
    });
  });
  return Object.assign(server, { url: `http://127.0.0.1:${server.addr.port}` });
}

Deno.test("dohnuts' native block is kept in decisions.jsonl and a low fit_mass is flagged", async () => {
  await using low = dohnuts(0.5);
  await using high = dohnuts(0.95);
  const workflow = validateWorkflow({
    name: "dohnuts",
    endpoint: { baseUrl: "http://127.0.0.1:9" },
  }, "t");
  const lowRun = await runBenchmark(workflow, {
    baseUrl: low.url,
    limit: 2,
    outDir: await Deno.makeTempDir(),
    dbPath: null,
  });
  const highRun = await runBenchmark(workflow, {
    baseUrl: high.url,
    limit: 2,
    outDir: await Deno.makeTempDir(),
    dbPath: null,
  });
  const records = await readDecisions(`${lowRun.dir}/decisions.jsonl`);
  const scores = records.filter((r) => r.type === "score");
  assert.ok(scores.length > 0);
  for (const r of scores) {
    assert.equal(r.native?.fit_mass, 0.5);
    assert.equal((r.native?.level_fit as number[]).length, Object.keys(r.predicted ?? {}).length);
    assert.deepEqual(r.warnings, ["low fit_mass 0.50: no level describes the state well"]);
  }
  assert.ok(
    records.filter((r) => r.type !== "score").every((r) =>
      r.native === undefined && r.warnings === undefined
    ),
  );
  const highRecords = await readDecisions(`${highRun.dir}/decisions.jsonl`);
  assert.ok(
    highRecords.filter((r) => r.type === "score").every((r) =>
      r.native?.fit_mass === 0.95 && r.warnings === undefined
    ),
  );
  assert.equal(lowRun.run.spec.calibrated, true);
  const report = markdownReport(lowRun.report);
  assert.doesNotMatch(report, /Uncalibrated engine/);
  assert.match(
    report,
    new RegExp(
      `\\*\\*Answer warnings\\.\\*\\* ${scores.length} decisions: low fit_mass 0\\.50: no level describes the state well\\.`,
    ),
  );
  const text = terminalReport(lowRun.report);
  assert.match(text, new RegExp(`warning +${scores.length} decisions: low fit_mass 0\\.50`));
  assert.doesNotMatch(
    terminalReport(highRun.report),
    /warning/,
  );
});
