import assert from "node:assert/strict";
import { errored, record, runJson, spec } from "../../tests/records_fixtures.ts";
import type { DecisionRecord } from "./schemas.ts";
import {
  checkIndexFile,
  INDEX_SCHEMA_VERSION,
  indexRun,
  IndexSchemaError,
  listRuns,
  openIndex,
  runDecisions,
} from "./sqlite_index.ts";

Deno.test("`indexRun()` stores a run and its decisions, and `runDecisions()` returns them unchanged", () => {
  const index = openIndex(":memory:");
  try {
    const records = [
      record({ case: "c1", question: "q1", native: { raw: [1, 2] }, warnings: ["w"] }),
      errored({ case: "c1", question: "q2", endpoint: "b" }),
      record({ case: "c2", question: "q1", calibrated: false }),
      // A field this index version has no column for survives as JSON.
      { ...record({ case: "c2", question: "q2" }), future_field: { a: 1 } } as DecisionRecord,
    ];
    const run = runJson(records);
    indexRun(index, run, records, { dir: "runs/x" });
    assert.deepEqual(runDecisions(index, run.id), records);
    const [row] = listRuns(index);
    assert.equal(row?.id, run.id);
    assert.equal(row?.decisions, 4);
    assert.equal(row?.dir, "runs/x");
    assert.equal(row?.metrics.accuracy, 3 / 4);
    assert.equal(row?.revision, run.spec.revision);
    assert.deepEqual(row?.summary, run.summary);
    assert.deepEqual(runDecisions(index, "unknown"), []);
  } finally {
    index.close();
  }
});

Deno.test("`indexRun()` keeps the order of 123 decisions (whole batches of rows, then the rest), and a key given twice keeps its first place with its last values", () => {
  const index = openIndex(":memory:");
  try {
    const records = Array.from(
      { length: 123 },
      (_, i) => record({ case: `c${String(i).padStart(3, "0")}`, latency_ms: i }),
    );
    const run = runJson(records);
    indexRun(index, run, records);
    assert.deepEqual(runDecisions(index, run.id), records);
    // The same key in the first batch and in the rest, and twice within one batch.
    const twice = [
      ...records.slice(0, 110),
      record({ case: "c003", latency_ms: 1003 }),
      ...records.slice(110),
      record({ case: "c020", latency_ms: 1020 }),
    ];
    twice.splice(40, 0, record({ case: "c010", latency_ms: 1010 }));
    indexRun(index, run, twice);
    const expected = records.map((r) =>
      r.case === "c003" || r.case === "c010" || r.case === "c020"
        ? { ...r, latency_ms: 1000 + (r.latency_ms as number) }
        : r
    );
    assert.deepEqual(runDecisions(index, run.id), expected);
  } finally {
    index.close();
  }
});

Deno.test("`indexRun()` on a run already indexed replaces its rows (no duplicates after a resume)", () => {
  const index = openIndex(":memory:");
  try {
    const first = [record({ case: "c1" }), errored({ case: "c2" })];
    indexRun(index, runJson(first, { status: "interrupted" }), first);
    const second = [record({ case: "c1" }), record({ case: "c2" })];
    indexRun(index, runJson(second), second);
    const runs = listRuns(index);
    assert.equal(runs.length, 1);
    assert.equal(runs[0]?.status, "completed");
    assert.deepEqual(runDecisions(index, runs[0]!.id), second);
  } finally {
    index.close();
  }
});

Deno.test("`listRuns()` filters by fingerprint, workflow and status, newest first", () => {
  const index = openIndex(":memory:");
  try {
    const r = [record()];
    indexRun(index, runJson(r, { id: "old", started_at: "2026-01-01T00:00:00Z" }), r);
    indexRun(
      index,
      runJson(r, {
        id: "new",
        started_at: "2026-02-01T00:00:00Z",
        status: "incomplete",
        spec: spec({ fingerprint: "ffffffffffffffff", workflow: "other" }),
      }),
      r,
    );
    assert.deepEqual(listRuns(index).map((x) => x.id), ["new", "old"]);
    assert.deepEqual(listRuns(index, { fingerprint: "ffffffffffffffff" }).map((x) => x.id), [
      "new",
    ]);
    assert.deepEqual(listRuns(index, { workflow: "w" }).map((x) => x.id), ["old"]);
    assert.deepEqual(listRuns(index, { status: "incomplete" }).map((x) => x.id), ["new"]);
  } finally {
    index.close();
  }
});

Deno.test("`openIndex()` creates the parent directory and reopens an existing file", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const path = `${tmp}/nested/runs.db`;
    const r = [record()];
    const index = openIndex(path);
    indexRun(index, runJson(r), r);
    index.close();
    const again = openIndex(path, { readOnly: true });
    assert.equal(listRuns(again).length, 1);
    again.close();
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`openIndex()` upgrades a version 1 file (no `extra` column) in place", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const path = `${tmp}/old.db`;
    const { DatabaseSync } = await import("node:sqlite");
    const old = new DatabaseSync(path);
    old.exec(
      "CREATE TABLE decisions (run_id TEXT NOT NULL, endpoint TEXT NOT NULL DEFAULT '', case_id TEXT NOT NULL, workflow TEXT NOT NULL, question TEXT NOT NULL, type TEXT NOT NULL, predicted TEXT, answer TEXT, confidence REAL, gold TEXT NOT NULL, gold_probabilities TEXT NOT NULL, correct INTEGER NOT NULL, kl REAL, brier REAL, latency_ms REAL, attempts INTEGER NOT NULL, input_tokens INTEGER, calibrated INTEGER, error_kind TEXT, error_message TEXT, native TEXT, warnings TEXT, PRIMARY KEY (run_id, endpoint, case_id, question)); PRAGMA user_version = 1",
    );
    old.close();
    const index = openIndex(path);
    try {
      const r = [record()];
      indexRun(index, runJson(r), r);
      assert.deepEqual(runDecisions(index, runJson(r).id), r);
      const version = index.db.prepare("PRAGMA user_version").get() as { user_version: number };
      assert.equal(version.user_version, INDEX_SCHEMA_VERSION);
      const made = index.db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'decisions' ORDER BY name",
      ).all() as { name: string }[];
      assert.deepEqual(
        made.map((m) => m.name).filter((n) => !n.startsWith("sqlite_")),
        [
          "decisions_by_confidence",
          "decisions_by_outcome",
          "decisions_by_outcome_confidence",
          "decisions_by_question",
          "decisions_by_question_confidence",
          "decisions_by_question_outcome",
          "decisions_by_run",
          "decisions_in_order",
        ],
        "the explorer's indexes are made in an older file",
      );
    } finally {
      index.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`openIndex()` writes nothing to a file already at the current version", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const path = `${tmp}/runs.db`;
    const r = [record()];
    const index = openIndex(path);
    indexRun(index, runJson(r), r);
    index.close();
    const before = await Deno.readFile(path);
    openIndex(path).close();
    // The header's change counter moves with any write, the schema version's included.
    assert.deepEqual(await Deno.readFile(path), before);
    const again = openIndex(path);
    const version = again.db.prepare("PRAGMA user_version").get() as { user_version: number };
    again.close();
    assert.equal(version.user_version, INDEX_SCHEMA_VERSION);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`openIndex()` drops the index by case of files written before it was dropped", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const path = `${tmp}/old.db`;
    openIndex(path).close();
    const { DatabaseSync } = await import("node:sqlite");
    const indexes = () => {
      const db = new DatabaseSync(path);
      try {
        return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as {
          name: string;
        }[]).map((r) => r.name);
      } finally {
        db.close();
      }
    };
    // As an earlier decibench left it.
    const old = new DatabaseSync(path);
    old.exec("CREATE INDEX decisions_by_case ON decisions (case_id, question)");
    old.close();
    assert.ok(indexes().includes("decisions_by_case"));
    openIndex(path).close();
    assert.ok(!indexes().includes("decisions_by_case"));
    assert.ok(indexes().includes("decisions_by_run"));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`checkIndexFile()` passes an absent, empty or current index, and names a file that is not one or has a newer schema", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const fresh = `${dir}/new/decibench.db`;
    checkIndexFile(fresh);
    assert.deepEqual([...Deno.readDirSync(`${dir}/new`)], [], "its folder made, no file left");
    openIndex(fresh).close();
    checkIndexFile(fresh);
    const empty = `${dir}/empty.db`;
    Deno.writeFileSync(empty, new Uint8Array());
    checkIndexFile(empty); // SQLite takes an empty file for an empty database

    const garbage = `${dir}/garbage.db`;
    await Deno.writeTextFile(garbage, "this is not a database ".repeat(200));
    assert.throws(() => checkIndexFile(garbage), /^Error: file is not a database$/);
    const short = `${dir}/short.db`;
    await Deno.writeTextFile(short, "SQLite format 3\0");
    assert.throws(() => checkIndexFile(short), /file is not a database/);

    const newer = `${dir}/newer.db`;
    const index = openIndex(newer);
    index.db.exec(`PRAGMA user_version = ${INDEX_SCHEMA_VERSION + 1}`);
    index.close();
    assert.throws(
      () => checkIndexFile(newer),
      new RegExp(`schema version ${INDEX_SCHEMA_VERSION + 1} is newer than this decibench's`),
    );
    assert.throws(() => checkIndexFile(newer), IndexSchemaError);
    assert.throws(() => openIndex(newer), /is newer than this decibench's/, "as openIndex says");
    assert.throws(() => openIndex(newer), IndexSchemaError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
