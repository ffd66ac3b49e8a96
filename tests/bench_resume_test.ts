// End-to-end: `deno task bench` stopped by Ctrl+C (SIGINT) or by a dead server loses no answered
// decision, and `--resume` finishes the same run so that it equals an uninterrupted one.
import assert from "node:assert/strict";
import { listRuns, openIndex, runDecisions } from "../lib/record/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import {
  type BenchEvent,
  decisionsWithoutLatency,
  events,
  freePort,
  readRunJson,
  runScript,
  spawnScript,
  startServe,
  summaryWithoutLatency,
  writeWorkflow,
} from "./bench_cli_helpers.ts";

const CASES = 120;

/** Reads `--json` events until `stopAfter` case events, calls `act`, then reads to the end. */
async function benchUntil(
  args: string[],
  stopAfter: number,
  act: (child: Deno.ChildProcess) => void | Promise<void>,
): Promise<{ code: number; events: BenchEvent[]; stderr: string }> {
  const run = spawnScript("bench.ts", args);
  const lines: string[] = [];
  let cases = 0;
  let acted = false;
  for await (const line of run.lines) {
    lines.push(line);
    if (!acted && JSON.parse(line).event === "case" && ++cases >= stopAfter) {
      acted = true;
      await act(run.child);
    }
  }
  const { code } = await run.child.status;
  assert.ok(acted, `the run ended before ${stopAfter} cases were answered`);
  return { code, events: events(lines), stderr: await run.stderr };
}

function caseEvents(list: readonly BenchEvent[]): BenchEvent[] {
  return list.filter((e) => e.event === "case");
}

Deno.test("`bench` interrupted by SIGINT keeps its decisions, refuses a changed resume, and `--resume` equals an uninterrupted run", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-resume-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 20 });
  try {
    const workflow = await writeWorkflow(tmp);
    const db = `${tmp}/index.db`;
    const dir = `${tmp}/run`;
    const common = ["--base-url", server.url, "--limit", String(CASES), "--db", db, "--json"];

    // 1. SIGINT after 15 answered cases.
    const first = await benchUntil(
      [workflow, ...common, "--out", dir],
      15,
      (child) => child.kill("SIGINT"),
    );
    assert.equal(first.code, 130, first.stderr);
    assert.match(first.stderr, /interrupted: no new requests/);
    const firstEvents = first.events; // every stdout line parsed as a JSON event
    assert.equal(firstEvents[0]?.event, "start");
    assert.equal(firstEvents.at(-1)?.event, "summary");
    assert.equal(firstEvents.at(-1)?.status, "interrupted");
    const interrupted = await readRunJson(dir);
    assert.equal(interrupted.status, "interrupted");
    const kept = caseEvents(firstEvents).length;
    assert.ok(kept >= 15 && kept < CASES, `kept ${kept} cases`);
    const keptDecisions = await decisionsWithoutLatency(dir);
    assert.equal(keptDecisions.length, kept * 5, "every answered case is on disk, nothing else");
    const requestsBefore = server.stats().decisionRequests;
    assert.equal(requestsBefore, kept, "no request was sent after the interruption");

    // 2. A resume with another model or another case count is refused, naming what differs.
    await t.step("a resume with another model or case count is refused", async () => {
      const model = await runScript("bench.ts", [
        workflow,
        ...common,
        "--resume",
        dir,
        "--model",
        "another",
      ]);
      assert.equal(model.code, 2);
      assert.match(model.stderr, /Cannot resume run ".*": its configuration differs/);
      assert.match(model.stderr, /model: recorded "decider", now "another"/);
      assert.equal(model.lines.length, 0, "nothing on stdout");
      const limit = await runScript("bench.ts", [
        workflow,
        "--base-url",
        server.url,
        "--limit",
        "60",
        "--db",
        db,
        "--resume",
        dir,
      ]);
      assert.equal(limit.code, 2);
      assert.match(limit.stderr, /cases: recorded "120 cases/);
      assert.match(limit.stderr, /now "60 cases/);
      assert.equal(
        server.stats().decisionRequests,
        requestsBefore,
        "a refused resume sends nothing",
      );
      assert.equal((await readRunJson(dir)).status, "interrupted");
    });

    // 3. Resume: only the unanswered cases are asked, in the same run directory and id.
    const resumed = await runScript("bench.ts", [workflow, ...common, "--resume", dir]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const resumedEvents = events(resumed.lines);
    assert.equal(resumedEvents[0]?.resumed, kept);
    assert.equal(resumedEvents[0]?.run_id, interrupted.id);
    assert.equal(caseEvents(resumedEvents).length, CASES - kept);
    assert.equal(server.stats().decisionRequests - requestsBefore, CASES - kept);
    const final = await readRunJson(dir);
    assert.equal(final.status, "completed");
    assert.equal(final.id, interrupted.id);
    assert.equal(final.started_at, interrupted.started_at);
    const sessions = final.sessions as { kept: number; asked: number; status: string }[];
    assert.deepEqual(sessions.map((s) => [s.status, s.kept, s.asked]), [
      ["interrupted", 0, kept],
      ["completed", kept, CASES - kept],
    ]);

    // 4. An uninterrupted run of the same configuration gives the same decisions and summary.
    const fresh = await runScript("bench.ts", [workflow, ...common, "--out", `${tmp}/fresh`]);
    assert.equal(fresh.code, 0, fresh.stderr);
    const resumedDecisions = await decisionsWithoutLatency(dir);
    assert.equal(resumedDecisions.length, CASES * 5);
    assert.deepEqual(resumedDecisions, await decisionsWithoutLatency(`${tmp}/fresh`));
    const resumedByKey = new Map(resumedDecisions.map((d) => [`${d.case}/${d.question}`, d]));
    assert.deepEqual(
      keptDecisions.map((d) => resumedByKey.get(`${d.case}/${d.question}`)),
      keptDecisions,
      "kept decisions unchanged",
    );
    const freshRun = await readRunJson(`${tmp}/fresh`);
    assert.deepEqual(summaryWithoutLatency(final), summaryWithoutLatency(freshRun));
    assert.equal(
      (final.spec as { fingerprint: string }).fingerprint,
      (freshRun.spec as { fingerprint: string }).fingerprint,
    );

    // 5. The index holds each run once, with one row per decision (the resume replaced, not added).
    const index = openIndex(db, { readOnly: true });
    try {
      const runs = listRuns(index);
      assert.deepEqual(runs.map((r) => r.id).sort(), [final.id, freshRun.id].sort());
      assert.equal(runs.find((r) => r.id === final.id)?.status, "completed");
      assert.equal(runDecisions(index, String(final.id)).length, CASES * 5);
    } finally {
      index.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`bench` whose server dies ends `incomplete` with what was answered, and `--resume` completes it once the server is back", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-deadserver-" });
  const port = freePort();
  const serveArgs = ["--port", String(port), "--predictor", "oracle", "--latency-ms", "20"];
  let serve = await startServe(serveArgs);
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const url = `http://127.0.0.1:${port}`;
    const common = [
      "--base-url",
      url,
      "--limit",
      String(CASES),
      "--db",
      `${tmp}/index.db`,
      "--json",
    ];
    const killed = await benchUntil([workflow, ...common, "--out", dir], 12, async () => {
      serve.child.kill("SIGKILL");
      await serve.child.status;
      await serve.stderr;
    });
    assert.equal(killed.code, 1, killed.stderr);
    const run = await readRunJson(dir);
    assert.equal(run.status, "incomplete");
    assert.match(String(run.fatal), /Cannot reach the endpoint ".*": 5 cases in a row failed/);
    assert.match(killed.stderr, /--resume/);
    const decisions = await decisionsWithoutLatency(dir);
    const answeredCases = caseEvents(killed.events).filter((e) => e.error === null);
    assert.ok(answeredCases.length >= 12);
    const answered = decisions.filter((d) => d.error === null);
    assert.equal(answered.length, answeredCases.length * 5, "every answered case is kept");
    assert.ok(
      decisions.filter((d) => d.error !== null).every((d) =>
        (d.error as { kind: string }).kind === "network"
      ),
    );
    assert.ok(decisions.length < CASES * 5, "the run stopped instead of failing every case");

    serve = await startServe(serveArgs);
    // No workflow argument: the resume reuses the workflow file the run recorded.
    const resumed = await runScript("bench.ts", [...common, "--resume", dir]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const resumedEvents = events(resumed.lines);
    assert.equal(resumedEvents[0]?.resumed, answeredCases.length);
    assert.equal(caseEvents(resumedEvents).length, CASES - answeredCases.length);
    const final = await readRunJson(dir);
    assert.equal(final.status, "completed");
    assert.equal(final.fatal, null);

    const fresh = await runScript("bench.ts", [workflow, ...common, "--out", `${tmp}/fresh`]);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.deepEqual(
      await decisionsWithoutLatency(dir),
      await decisionsWithoutLatency(`${tmp}/fresh`),
    );
    assert.deepEqual(
      summaryWithoutLatency(final),
      summaryWithoutLatency(await readRunJson(`${tmp}/fresh`)),
    );
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr;
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`bench` killed outright (SIGKILL) leaves whole cases on disk, and `--resume` completes the run", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-crash-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 20 });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const common = [
      "--base-url",
      server.url,
      "--limit",
      "100",
      "--db",
      `${tmp}/index.db`,
      "--json",
    ];
    const crashed = await benchUntil(
      [workflow, ...common, "--out", dir],
      10,
      (child) => child.kill("SIGKILL"),
    );
    assert.notEqual(crashed.code, 0);
    assert.equal((await readRunJson(dir)).status, "running", "no chance to write the end");
    const onDisk = await decisionsWithoutLatency(dir);
    assert.ok(onDisk.length >= 50 && onDisk.length % 5 === 0, `${onDisk.length} decisions`);
    const resumed = await runScript("bench.ts", [workflow, ...common, "--resume", dir]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(events(resumed.lines)[0]?.resumed, onDisk.length / 5);
    const final = await readRunJson(dir);
    assert.equal(final.status, "completed");
    const decisions = await decisionsWithoutLatency(dir);
    assert.equal(decisions.length, 500);
    assert.equal(
      new Set(decisions.map((d) => `${d.case}/${d.question}`)).size,
      500,
      "no duplicate",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
