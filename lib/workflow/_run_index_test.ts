import assert from "node:assert/strict";
import { join } from "node:path";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { indexRun, listRuns, openIndex, runDecisions } from "../record/mod.ts";
import type { Case } from "../dataset/mod.ts";
import { IndexSink } from "./_run_index.ts";

const records = [
  record({ case: "c1" }),
  errored({ case: "c2" }),
  record({ case: "c3" }),
  record({ case: "c4" }),
  record({ case: "c5" }),
];
const running = runJson(records, { status: "running", summary: null, finished_at: null });
const final = runJson(records, { status: "incomplete" });
const item = { id: "c", state: {} } as unknown as Case;

/** The index's rows of the run, read after the writes closed it. */
function rows(path: string) {
  const index = openIndex(path, { readOnly: true });
  try {
    return { runs: listRuns(index), decisions: runDecisions(index, final.id) };
  } finally {
    index.close();
  }
}

Deno.test("`IndexSink` writes decisions in batches as cases come, and ends with the same entry as indexing at once", async () => {
  const dir = await Deno.makeTempDir();
  const once = openIndex(join(dir, "once.db"));
  indexRun(once, final, records, { dir: "runs/x" });
  once.close();
  const path = join(dir, "sink.db");
  const sink = new IndexSink(path, "runs/x", 2);
  sink.start(running);
  records.forEach((r, index) => sink.case({ item, index, records: [r], asked: null }));
  // Between start and finish the index holds the run as its directory does: still running, with
  // the decisions of the full batches.
  assert.equal(rows(path).runs[0]?.status, "running");
  assert.equal(rows(path).decisions.length, 4);
  sink.finish(final);
  assert.equal(sink.error, null);
  assert.deepEqual(rows(path), rows(join(dir, "once.db")));
  assert.equal(rows(path).runs[0]?.status, "incomplete");
  assert.equal(rows(path).decisions.length, 5);
});

Deno.test("`IndexSink` that cannot write the index leaves its reason, and no path writes nothing", async () => {
  const dir = await Deno.makeTempDir();
  // A directory where the file should be: SQLite cannot open it.
  await Deno.mkdir(join(dir, "taken.db"));
  const taken = new IndexSink(join(dir, "taken.db"), "runs/x");
  taken.start(running);
  taken.case({ item, index: 0, records, asked: null });
  taken.finish(final);
  assert.match(taken.error ?? "", /./);
  const none = new IndexSink(null, "runs/x");
  none.start(running);
  none.case({ item, index: 0, records, asked: null });
  none.finish(final);
  assert.equal(none.error, null);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["taken.db"]);
});
