// `runGate` over a user question set against a reference server whose P(yes) is read from the
// state, so verdicts can be checked against the bar exactly.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runGate } from "../lib/audit/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { validateWorkflow } from "../lib/workflow/mod.ts";

/** Question names of every request it answered. */
const asked: string[][] = [];
/** Answers P(yes) = the state's `p`. */
const byState = {
  name: "by-state",
  predict(state: unknown, questions: Record<string, unknown>) {
    asked.push(Object.keys(questions));
    const p = (state as { p: number }).p;
    return Object.fromEntries(Object.keys(questions).map((q) => [q, { true: p, false: 1 - p }]));
  },
};

Deno.test("`runGate()` verdicts follow p_yes ≥ threshold exactly, with per-lane rates over labelled cases", async () => {
  await using server = await startReferenceServer({ predictor: byState });
  const dir = await Deno.makeTempDir();
  const path = join(dir, "items.jsonl");
  const rows = [
    { id: "a", lane: "x", p: 0.7, ok: false }, // at the bar: pass (a false pass)
    { id: "b", lane: "x", p: 0.6999999, ok: true }, // just below: fail (a false fail)
    { id: "c", lane: "x", p: 0.95, ok: true },
    { id: "d", lane: "y", p: 0.1, ok: false },
    { id: "e", lane: "y", p: 0.8 }, // unlabelled: a verdict, no rate
  ];
  await Deno.writeTextFile(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const workflow = validateWorkflow({
    name: "items",
    endpoint: { baseUrl: server.url, model: "gate-model" },
    dataset: { path, id: "id", state: ["p"], lane: "lane" },
    questions: {
      ok: { type: "noul", instructions: "Is this safe to auto-approve?", gold: "ok" },
      note: { type: "choice", instructions: "Which?", criteria: ["u", "v"] },
    },
  }, "test.ts");
  const result = await runGate(workflow, "ok", { outDir: join(dir, "gate") });
  const records = await Array.fromAsync(result.records());
  assert.deepEqual(records.map((r) => [r.id, r.lane, r.p_yes, r.verdict, r.label]), [
    ["a", "x", 0.7, "pass", false],
    ["b", "x", 0.6999999, "fail", true],
    ["c", "x", 0.95, "pass", true],
    ["d", "y", 0.1, "fail", false],
    ["e", "y", 0.8, "pass", null],
  ]);
  assert.equal(records[0]?.provenance.model, "gate-model", "the model id the server echoed");
  const [x, y, overall] = result.run.lanes;
  assert.deepEqual([x?.lane, x?.rates?.falsePasses, x?.rates?.falseFails, x?.rates?.agreement], [
    "x",
    1,
    1,
    1 / 3,
  ]);
  assert.equal(x?.rates?.falsePassUpper, 1, "1 false pass in 1 negative: the bound is 1");
  assert.deepEqual([y?.cases, y?.labelled, y?.rates?.falsePassRate], [2, 1, 0]);
  assert.ok(Math.abs(y!.rates!.falsePassUpper! - 0.95) < 1e-9, "0 in 1: 1 − 0.05");
  assert.deepEqual([overall?.cases, overall?.labelled, result.run.undecided], [5, 4, 0]);
  // Decision requests: parallel "auto" also asks /props and /slots once.
  assert.equal(server.stats().decisionRequests, 5, "one request per case");
  assert.deepEqual(asked, [["ok"], ["ok"], ["ok"], ["ok"], ["ok"]], "each asks the one question");
  const onDisk = (await Deno.readTextFile(join(dir, "gate", "gate.jsonl"))).trim().split("\n");
  assert.equal(onDisk.length, 5);
  assert.deepEqual(JSON.parse(onDisk[1]!), records[1]);
  await assert.rejects(
    runGate(workflow, "note", { outDir: join(dir, "g2") }),
    /question "note" is a choice question; the gate asks a yes\/no \(noul\) question \(ok\)/,
  );
});

Deno.test("`runGate()` stopped by a refused key writes every case, in set order, undecided and not asked", async () => {
  await using server = await startReferenceServer({ predictor: byState, apiKey: "right-key" });
  const dir = await Deno.makeTempDir();
  const path = join(dir, "items.jsonl");
  const rows = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, lane: "x", p: 0.5, ok: true }));
  await Deno.writeTextFile(path, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const workflow = validateWorkflow({
    name: "items",
    endpoint: { baseUrl: server.url, apiKeyEnv: "WRONG_KEY_ENV" },
    dataset: { path, id: "id", state: ["p"], lane: "lane" },
    questions: { ok: { type: "noul", instructions: "Safe?", gold: "ok" } },
  }, "test.ts");
  const result = await runGate(workflow, "ok", {
    outDir: join(dir, "gate"),
    parallel: 4,
    env: (name) => name === "WRONG_KEY_ENV" ? "wrong-key" : undefined,
  });
  const records = await Array.fromAsync(result.records());
  assert.deepEqual(records.map((r) => r.id), rows.map((r) => r.id), "every case, in set order");
  assert.ok(records.every((r) => r.verdict === "undecided" && r.p_yes === null));
  assert.ok(records.some((r) => r.error?.kind === "not_asked"), "the cases never asked say so");
  assert.notEqual(result.run.fatal, null);
  assert.deepEqual([result.run.cases, result.run.undecided], [40, 40]);
  const left = [...Deno.readDirSync(join(dir, "gate"))].map((e) => e.name).sort();
  assert.deepEqual(left, ["gate.json", "gate.jsonl"], "no temporary file left behind");
});
