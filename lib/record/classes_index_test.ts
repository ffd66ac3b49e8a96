import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { classResults } from "../metrics/mod.ts";
import { indexRun, openIndex, runClasses, updateIndexedRun } from "./sqlite_index.ts";

const records = [
  record({ case: "c1", workflow: "email" }),
  record({ case: "c2", workflow: "chat", gold: "false", correct: false }),
  errored({ case: "c3", workflow: "chat" }),
  record({ case: "c4", workflow: "chat", gold: null, correct: false }),
];

function withClasses() {
  const run = runJson(records);
  return { ...run, summary: { ...run.summary!, classes: classResults(records, { resamples: 0 }) } };
}

Deno.test("`indexRun()` writes the summary's per-class rows and `runClasses()` reads them, whole run first, then each lane", () => {
  const index = openIndex(":memory:");
  try {
    const run = withClasses();
    indexRun(index, run, records);
    const rows = runClasses(index, run.id);
    assert.deepEqual(rows.map((r) => [r.lane, r.label, r.support]), [
      [null, "true", 2],
      [null, "false", 1],
      ["email", "true", 1],
      ["email", "false", 0],
      ["chat", "true", 1],
      ["chat", "false", 1],
    ]);
    // Whole run: gold true answered true (c1), gold true errored (c3); gold false answered true.
    assert.deepEqual(rows[0], {
      question: "q1",
      lane: null,
      label: "true",
      precision: 0.5,
      recall: 0.5,
      f1: 0.5,
      support: 2,
    });
    assert.equal(rows[1]?.precision, null, "false is never predicted");
    // Indexed again (a resume) without per-class results: the old rows go.
    updateIndexedRun(index, { ...run, summary: null }, records.length);
    assert.deepEqual(runClasses(index, run.id), []);
    updateIndexedRun(index, run, records.length);
    assert.equal(runClasses(index, run.id).length, 6);
    assert.deepEqual(runClasses(index, "unknown"), []);
  } finally {
    index.close();
  }
});

Deno.test("`runClasses()` reads an index file written before the table existed as having none", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-classes-index-" });
  try {
    const path = join(dir, "old.db");
    const index = openIndex(path);
    indexRun(index, withClasses(), records);
    index.close();
    const db = new DatabaseSync(path);
    db.exec("DROP TABLE classes");
    db.close();
    const readOnly = openIndex(path, { readOnly: true });
    assert.deepEqual(runClasses(readOnly, withClasses().id), []);
    readOnly.close();
    // Opened for writing, the file gets the table again.
    const writable = openIndex(path);
    indexRun(writable, withClasses(), records);
    assert.equal(runClasses(writable, withClasses().id).length, 6);
    writable.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
