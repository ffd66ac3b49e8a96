// End-to-end: a full `deno task bench` run (400 cases against the embedded reference server) lands
// in the SQLite index with its 2,000 decisions, and indexing it again (as `--resume` does) adds
// no duplicate.
import assert from "node:assert/strict";
import {
  indexRun,
  listRuns,
  loadRun,
  openIndex,
  readDecisions,
  runDecisions,
} from "../lib/record/mod.ts";
import { events, readRunJson, runScript } from "./bench_cli_helpers.ts";

Deno.test("a full `bench` run's 2,000 decisions are in the SQLite index, once, after a resume too", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-index-" });
  try {
    const db = `${tmp}/runs.db`;
    const dir = `${tmp}/run`;
    const bench = await runScript("bench.ts", ["--out", dir, "--db", db, "--json"]);
    assert.equal(bench.code, 0, bench.stderr);
    const stream = events(bench.lines);
    assert.deepEqual(
      [...new Set(stream.map((e) => e.event))],
      ["start", "case", "summary"],
      "--json prints only events",
    );
    const run = await readRunJson(dir);
    const spec = run.spec as { endpoint: string; fingerprint: string; revision: string };
    // The default workflow's embedded server: identified by its predictor, not its port.
    assert.match(spec.endpoint, /^embedded:reference\/[a-z]+$/);

    const index = openIndex(db);
    try {
      const runs = listRuns(index);
      assert.equal(runs.length, 1);
      const [row] = runs;
      assert.equal(row?.id, run.id);
      assert.equal(row?.status, "completed");
      assert.equal(row?.fingerprint, spec.fingerprint);
      assert.equal(row?.revision, spec.revision);
      assert.equal(row?.model, "decibench-reference");
      assert.equal(row?.decisions, 2000);
      assert.equal(row?.metrics.accuracy, run.summary?.metrics.accuracy);
      const count = (id: string) =>
        Number(
          (index.db.prepare("SELECT count(*) AS n FROM decisions WHERE run_id = ?").get(id) as {
            n: number;
          }).n,
        );
      assert.equal(count(String(run.id)), 2000);
      // Round trip: the index returns exactly the decisions of decisions.jsonl.
      assert.deepEqual(
        runDecisions(index, String(run.id)),
        await readDecisions(`${dir}/decisions.jsonl`),
      );
      // Indexing the same run again replaces its rows.
      const loaded = await loadRun(dir);
      indexRun(index, loaded.run, loaded.records, { dir });
      assert.equal(count(String(run.id)), 2000);
    } finally {
      index.close();
    }

    // Resuming the completed run (no workflow argument: the recorded one; the embedded server gets
    // a new port but the same identity) asks nothing and leaves one row per decision.
    const resumed = await runScript("bench.ts", ["--resume", dir, "--db", db, "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const resumedEvents = events(resumed.lines);
    assert.equal(resumedEvents[0]?.resumed, 400);
    assert.equal(resumedEvents.filter((e) => e.event === "case").length, 0);
    const again = openIndex(db, { readOnly: true });
    try {
      assert.equal(listRuns(again).length, 1);
      assert.equal(runDecisions(again, String(run.id)).length, 2000);
      assert.equal(listRuns(again, { fingerprint: "0000000000000000" }).length, 0);
    } finally {
      again.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
