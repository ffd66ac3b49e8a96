import assert from "node:assert/strict";
import { join } from "node:path";
import { type Case, loadDataset } from "../dataset/mod.ts";
import {
  type AnsweredCase,
  type DecisionRecord,
  inCaseOrder,
  readDecisionLines,
  readDecisions,
  type RunJson,
  type RunSink,
} from "../record/mod.ts";
import { startReferenceServer } from "../server/mod.ts";
import { arrayCaseSource, caseDigests } from "./case_source.ts";
import { selectCases } from "./cases.ts";
import { prepareEndpoint, runPrepared } from "./run.ts";
import { validateWorkflow } from "./load.ts";

/** A run's decisions read back from its records file, by case id. */
async function recordsOf(dir: string): Promise<readonly DecisionRecord[]> {
  return inCaseOrder(await readDecisions(join(dir, "decisions.jsonl")));
}

const dataset = await loadDataset();
const cases = selectCases(dataset.cases, {}, 12);

function workflowFor(url: string, parallel = 1) {
  return validateWorkflow({
    name: "sinks",
    endpoint: { baseUrl: url, model: "decider" },
    parallel,
  }, "sinks.ts");
}

/** The cases as an async stream. */
async function* stream(): AsyncGenerator<Case> {
  for (const c of cases) yield c;
}

/** A sink that records what it is told. */
class Log implements RunSink {
  calls: string[] = [];
  start(run: RunJson): void {
    this.calls.push(`start ${run.status}`);
  }
  case(answered: AnsweredCase): void {
    this.calls.push(`case ${answered.index} ${answered.asked === null ? "kept" : "asked"}`);
  }
  finish(run: RunJson): void {
    this.calls.push(`finish ${run.status}`);
  }
  close(): void {
    this.calls.push("close");
  }
}

Deno.test("`runPrepared()` reads cases from an async iterable source and feeds every sink start, each case, finish and close", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const tmp = await Deno.makeTempDir();
  try {
    const workflow = workflowFor(server.url);
    const endpoint = await prepareEndpoint(workflow.endpoint!);
    const array = arrayCaseSource(cases);
    const log = new Log();
    const streamed = await runPrepared(workflow, {
      dataset,
      cases: { ...array, cases: stream(), list: undefined },
      endpoint,
    }, { outDir: join(tmp, "streamed"), dbPath: null, sinks: [log] });
    const listed = await runPrepared(workflow, { dataset, cases, endpoint }, {
      outDir: join(tmp, "listed"),
      dbPath: null,
    });
    assert.deepEqual(log.calls, [
      "start running",
      ...cases.map((_, i) => `case ${i} asked`),
      "finish completed",
      "close",
    ]);
    assert.equal(streamed.run.spec.questions_sha256, listed.run.spec.questions_sha256);
    assert.equal(streamed.run.spec.case_ids_sha256, listed.run.spec.case_ids_sha256);
    assert.deepEqual(
      (await recordsOf(streamed.dir)).map(({ latency_ms: _, ...r }) => r),
      (await recordsOf(listed.dir)).map(({ latency_ms: _, ...r }) => r),
    );
    assert.equal(streamed.summary.metrics.accuracy, listed.summary.metrics.accuracy);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`caseDigests()` hashes the case ids and the questions as JSON.stringify of every case's questions", async () => {
  const digests = await caseDigests(cases);
  const sha = async (text: string) =>
    Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
  assert.equal(digests.caseIdsSha256, await sha(cases.map((c) => c.id).join("\n")));
  assert.equal(digests.questionsSha256, await sha(JSON.stringify(cases.map((c) => c.questions))));
});

Deno.test("`runPrepared()` stops at a sink's failure with its error: no request after it, every case answered before on disk, sinks closed", async () => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  const tmp = await Deno.makeTempDir();
  try {
    const workflow = workflowFor(server.url);
    const endpoint = await prepareEndpoint(workflow.endpoint!);
    const dir = join(tmp, "run");
    let closed = false;
    const failing: RunSink = {
      case(answered) {
        if (answered.index === 4) throw new Error('Cannot write "x": No space left on device');
      },
      close() {
        closed = true;
      },
    };
    await assert.rejects(
      runPrepared(workflow, { dataset, cases, endpoint }, {
        outDir: dir,
        dbPath: null,
        sinks: [failing],
      }),
      /No space left on device/,
    );
    assert.ok(closed, "the sinks are closed");
    assert.equal(server.stats().decisionRequests, 5, "no request after the failure");
    const onDisk = new Set<string>();
    for await (const { record } of readDecisionLines(join(dir, "decisions.jsonl"))) {
      onDisk.add(record.case);
    }
    assert.deepEqual([...onDisk], cases.slice(0, 5).map((c) => c.id));
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["decisions.jsonl", "run.json"], "no trace part file or lock left");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
