import assert from "node:assert/strict";
import { join } from "node:path";
import { type DecisionRecord, inCaseOrder, loadRun, readDecisions } from "../record/mod.ts";
import { loadCases, openCases } from "./cases.ts";
import { type CaseSource, questionSetSource } from "./case_source.ts";
import { validateWorkflow } from "./load.ts";
import { prepareEndpoint, runBenchmark, runCases, runPrepared } from "./run.ts";
import type { Workflow } from "./schemas.ts";
import { checkThresholdTargets } from "./thresholds.ts";

const ROWS = 2000;

/** A generated JSONL question set: two lanes, one choice question with its gold. */
async function writeSet(dir: string): Promise<string> {
  const path = join(dir, "tickets.jsonl");
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    lines.push(JSON.stringify({
      ticket_id: `t${String(i).padStart(5, "0")}`,
      queue: i % 3 === 0 ? "billing" : "support",
      text: `Ticket ${i}: the customer writes about order ${i * 7}`,
      priority: ["low", "normal", "high"][i % 3],
    }));
  }
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

function workflowFor(path: string, predictor: string, parallel = 8): Workflow {
  return validateWorkflow({
    name: "stream",
    endpoint: { reference: { predictor } },
    dataset: { path, id: "ticket_id", state: ["text"], lane: "queue" },
    questions: {
      priority: {
        type: "choice",
        instructions: "How soon should this ticket be handled?",
        criteria: { low: "It can wait.", normal: "In the queue.", high: "Today." },
        gold: "priority",
      },
    },
    parallel,
  }, "stream.ts");
}

/** A run's decisions without their latency, by case id. */
async function decisionsOf(dir: string): Promise<Omit<DecisionRecord, "latency_ms">[]> {
  return inCaseOrder(await readDecisions(join(dir, "decisions.jsonl")))
    .map(({ latency_ms: _, ...rest }) => rest);
}

function isSource(cases: unknown): cases is CaseSource {
  return !Array.isArray(cases);
}

Deno.test("a run of a user question set streams its cases: the source has no list, and its results equal the array path's", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const workflow = workflowFor(await writeSet(tmp), "uniform");
    const spec = workflow.endpoint!;

    const { cases } = await runCases(workflow, spec);
    assert.ok(isSource(cases), "the cases are a source, not an array");
    assert.equal(cases.list, undefined, "the source holds no list of cases");
    assert.equal(cases.count, ROWS);
    // Stability passes and the embedded oracle hold the cases.
    assert.ok(Array.isArray((await runCases(workflow, spec, { repeat: 2 })).cases));
    const oracle = workflowFor(join(tmp, "tickets.jsonl"), "oracle");
    assert.ok(Array.isArray((await runCases(oracle, oracle.endpoint!)).cases));
    assert.ok(isSource((await runCases(oracle, oracle.endpoint!, { baseUrl: "http://x" })).cases));

    const streamed = await runBenchmark(workflow, {
      outDir: join(tmp, "streamed"),
      dbPath: null,
      reports: false,
    });
    const loaded = await loadCases(workflow);
    const endpoint = await prepareEndpoint(spec, { questionSet: loaded.dataset });
    let listed;
    try {
      listed = await runPrepared(workflow, { ...loaded, endpoint }, {
        outDir: join(tmp, "listed"),
        dbPath: null,
        reports: false,
      });
    } finally {
      await endpoint.close();
    }
    assert.equal(streamed.status, "completed");
    assert.deepEqual(streamed.run.spec, listed.run.spec, "same digests, fingerprint and spec");
    const { latency: _a, ...streamedSummary } = streamed.summary;
    const { latency: _b, ...listedSummary } = listed.summary;
    assert.deepEqual(streamedSummary, listedSummary);
    assert.equal(streamed.summary.decisions, ROWS);
    assert.deepEqual(await decisionsOf(streamed.dir), await decisionsOf(listed.dir));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a streamed user question set resumes: its expected questions come from the stream and only the missing cases are asked", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const workflow = workflowFor(await writeSet(tmp), "uniform");
    const dir = join(tmp, "run");
    await runBenchmark(workflow, { outDir: dir, dbPath: null, reports: false, limit: 300 });
    const file = join(dir, "decisions.jsonl");
    const lines = (await Deno.readTextFile(file)).trimEnd().split("\n");
    await Deno.writeTextFile(file, lines.slice(0, 200).join("\n") + "\n");
    const resumed = await runBenchmark(workflow, {
      resume: await loadRun(dir),
      dbPath: null,
      reports: false,
      limit: 300,
    });
    assert.equal(resumed.status, "completed");
    const session = resumed.run.sessions?.at(-1);
    assert.equal(session?.kept, 200);
    assert.equal(session?.asked, 100);
    assert.equal((await readDecisions(file)).length, 300);

    const set = await openCases(workflow, { limit: 300 });
    const expected = await questionSetSource(set).expected();
    assert.equal(expected.size, 300);
    assert.deepEqual([...new Set(expected.values())], [["priority"]], "one shared list of names");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("threshold targets are checked on an opened set with the messages the case list gives", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const workflow = workflowFor(await writeSet(tmp), "uniform");
    const set = await openCases(workflow, { limit: 50 });
    const { cases } = await loadCases(workflow, { limit: 50 });
    const refusal = (target: Parameters<typeof checkThresholdTargets>[1], spec: object) => {
      try {
        checkThresholdTargets(
          [{ metric: "accuracy", op: ">=", limit: 0.5, ...spec }] as Workflow["thresholds"],
          target,
          "stream.ts",
        );
        return null;
      } catch (error) {
        return (error as Error).message;
      }
    };
    for (const spec of [{ lane: "sales" }, { question: "urgency" }, { lane: "billing" }]) {
      assert.equal(refusal(set, spec), refusal(cases, spec));
    }
    assert.match(refusal(set, { lane: "sales" }) ?? "", /lanes: billing, support\)$/);
    assert.equal(refusal(set, { question: "priority" }), null);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
