import assert from "node:assert/strict";
import { join } from "node:path";
import { indexRun, openIndex } from "../record/mod.ts";
import { record, runJson } from "../../tests/records_fixtures.ts";
import { RunCatalog } from "./catalog.ts";

async function writeRun(dir: string, run: ReturnType<typeof runJson>, records = [record()]) {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, "run.json"), JSON.stringify(run));
  await Deno.writeTextFile(
    join(dir, "decisions.jsonl"),
    records.map((r) => JSON.stringify(r)).join("\n") + "\n",
  );
}

Deno.test("`RunCatalog` merges the index and the runs folder, reading only what it found there", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-catalog-" });
  try {
    const runs = join(tmp, "runs");
    const records = [record(), record({ question: "q2", correct: false })];
    const indexed = runJson(records, { id: "indexed", started_at: "2026-01-03T00:00:00.000Z" });
    const resumed = runJson(records, { id: "resumed", started_at: "2026-01-02T00:00:00.000Z" });
    const db = join(tmp, "index.db");
    const index = openIndex(db);
    indexRun(index, indexed, records);
    indexRun(index, resumed, records);
    index.close();
    await writeRun(join(runs, "indexed"), indexed, records);
    // Being resumed: the directory says running, the index still holds the old finished run.
    await writeRun(join(runs, "resumed"), { ...resumed, status: "running", finished_at: null }, [
      record(),
    ]);
    // An engine comparison keeps its runs one level down.
    await writeRun(
      join(runs, "comparison", "engine-a"),
      runJson(records, { id: "nested", started_at: "2026-01-01T00:00:00.000Z" }),
    );
    await Deno.mkdir(join(runs, "junk"));
    await Deno.writeTextFile(join(runs, "junk", "run.json"), '{"not": "a run"}');
    await writeRun(join(tmp, "outside"), runJson(records, { id: "outside" }));
    await Deno.symlink(join(tmp, "outside"), join(runs, "linked"));

    const catalog = new RunCatalog({ dbPath: db, runsDir: runs });
    try {
      const list = await catalog.list();
      await t.step("newest first; nested runs found; junk and symbolic links left out", () => {
        assert.deepEqual(list.map((r) => r.id), ["indexed", "resumed", "nested"]);
      });
      await t.step("a run the index holds as it finished is read from the index", async () => {
        const entry = list.find((r) => r.id === "indexed")!;
        assert.equal(entry.source, "index");
        assert.deepEqual(await catalog.records(entry), records);
      });
      await t.step("a run whose directory moved on is read from its directory", async () => {
        const entry = list.find((r) => r.id === "resumed")!;
        assert.equal(entry.source, "file");
        assert.equal(entry.run.status, "running");
        assert.deepEqual(await catalog.records(entry), [record()]);
        assert.deepEqual(await catalog.progress(entry), {
          id: "resumed",
          status: "running",
          casesDone: 1,
          cases: entry.run.spec.cases,
          decisions: 1,
        });
      });
      await t.step("an id is found only exactly", async () => {
        for (
          const id of ["..", "../outside", "outside", "linked", "/etc/passwd", "indexed\u0000"]
        ) {
          assert.equal(await catalog.get(id), undefined, id);
        }
      });
    } finally {
      catalog.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
