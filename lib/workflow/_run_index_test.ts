import assert from "node:assert/strict";
import { join } from "node:path";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { listRuns, openIndex, runDecisions } from "../record/mod.ts";
import { indexFinishedRun } from "./_run_index.ts";

const records = [record({ case: "c1" }), errored({ case: "c2" })];
const final = runJson(records, { status: "incomplete" });

Deno.test("`indexFinishedRun()` adds the run and its decisions, and closes the index", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "index.db");
  assert.equal(indexFinishedRun(path, { run: final, records, dir: "runs/x" }), null);
  // Closed: the file can be opened again and holds the run as its directory does.
  const index = openIndex(path, { readOnly: true });
  try {
    const [row, ...rest] = listRuns(index);
    assert.equal(rest.length, 0);
    assert.equal(row?.status, "incomplete");
    assert.equal(row?.dir, "runs/x");
    assert.deepEqual(runDecisions(index, final.id), records);
  } finally {
    index.close();
  }
});

Deno.test("`indexFinishedRun()` returns why an index cannot be written", async () => {
  const dir = await Deno.makeTempDir();
  // A directory where the file should be: SQLite cannot open it.
  await Deno.mkdir(join(dir, "taken.db"));
  const error = indexFinishedRun(join(dir, "taken.db"), { run: final, records, dir: "runs/x" });
  assert.match(error ?? "", /./);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["taken.db"]);
});
