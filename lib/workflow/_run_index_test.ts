import assert from "node:assert/strict";
import { join } from "node:path";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { listRuns, openIndex, runDecisions } from "../record/mod.ts";
import { RunIndexWrite } from "./_run_index.ts";

const records = [record({ case: "c1" }), errored({ case: "c2" })];
const running = runJson(records, { status: "running", summary: null, finished_at: null });
const final = runJson(records, { status: "incomplete" });

/** The index's rows of the run, read after the writes closed it. */
function rows(path: string) {
  const index = openIndex(path, { readOnly: true });
  try {
    return { runs: listRuns(index), decisions: runDecisions(index, final.id) };
  } finally {
    index.close();
  }
}

Deno.test("a run's index entry written in two steps is the one written at once", async () => {
  const dir = await Deno.makeTempDir();
  const once = new RunIndexWrite(join(dir, "once.db"), "runs/x");
  once.finish(final, records);
  const twice = new RunIndexWrite(join(dir, "twice.db"), "runs/x");
  twice.decisions(running, records);
  // Between the steps the index holds the run as its directory does: still running.
  assert.equal(rows(join(dir, "twice.db")).runs[0]?.status, "running");
  twice.finish(final, records);
  assert.equal(once.error, null);
  assert.equal(twice.error, null);
  assert.deepEqual(rows(join(dir, "twice.db")), rows(join(dir, "once.db")));
  assert.equal(rows(join(dir, "twice.db")).runs[0]?.status, "incomplete");
  assert.equal(rows(join(dir, "twice.db")).decisions.length, 2);
});

Deno.test("an index that cannot be written leaves its reason, and no path writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  // A directory where the file should be: SQLite cannot open it.
  await Deno.mkdir(join(dir, "taken.db"));
  const taken = new RunIndexWrite(join(dir, "taken.db"), "runs/x");
  taken.decisions(running, records);
  taken.finish(final, records);
  assert.match(taken.error ?? "", /./);
  const none = new RunIndexWrite(null, "runs/x");
  none.decisions(running, records);
  none.finish(final, records);
  assert.equal(none.error, null);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["taken.db"]);
});
