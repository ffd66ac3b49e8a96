import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { record, runJson } from "../../tests/records_fixtures.ts";
import type { DecisionRecord } from "./schemas.ts";
import { INDEX_SCHEMA_VERSION, indexRun, openIndex, runDecisions } from "./sqlite_index.ts";

/** An unlabelled decision as decisions.jsonl holds it: no gold, correct null, no KL or Brier. */
function unlabelled(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  const { kl: _, brier: __, ...rest } = record({
    case: "c2",
    question: "q1",
    gold: null,
    gold_probabilities: null,
    correct: null,
    ...overrides,
  });
  return rest;
}

Deno.test("`runDecisions()` returns an unlabelled decision (gold null) as it was recorded", () => {
  const index = openIndex(":memory:");
  try {
    const records = [record({ case: "c1", question: "q1" }), unlabelled()];
    const run = runJson(records);
    indexRun(index, run, records);
    assert.deepEqual(runDecisions(index, run.id), records);
  } finally {
    index.close();
  }
});

Deno.test("an unlabelled decision is NULL in the index, so avg(correct) is over labelled ones", () => {
  const index = openIndex(":memory:");
  try {
    const records = [
      record({ case: "c1" }),
      record({ case: "c2", correct: false, answer: "false" }),
      unlabelled({ case: "c3" }),
      // A line written before unlabelled decisions had correct null.
      { ...unlabelled({ case: "c4" }), correct: false, kl: null, brier: null },
    ];
    const run = runJson(records);
    indexRun(index, run, records);
    const row = index.db.prepare(
      `SELECT avg(correct) AS accuracy, count(correct) AS labelled, sum(gold IS NULL) AS none,
        sum(gold_probabilities IS NULL) AS no_p FROM decisions`,
    ).get() as Record<string, number>;
    assert.deepEqual({ ...row }, { accuracy: 0.5, labelled: 2, none: 2, no_p: 2 });
    assert.equal(runDecisions(index, run.id)[3]?.correct, null);
  } finally {
    index.close();
  }
});

Deno.test("an index of an older version is rebuilt: its unlabelled rows become NULL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-index-v4-" });
  const path = join(dir, "old.db");
  try {
    // The decisions table as version 4 made it: gold, gold_probabilities and correct NOT NULL.
    const old = new DatabaseSync(path);
    old.exec(`
      CREATE TABLE runs (id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, workflow TEXT NOT NULL,
        workflow_file TEXT, endpoint TEXT NOT NULL, endpoint_name TEXT, engine TEXT NOT NULL,
        model TEXT NOT NULL, model_reported TEXT, dataset TEXT NOT NULL, revision TEXT NOT NULL,
        split TEXT NOT NULL, status TEXT NOT NULL, cases INTEGER NOT NULL,
        decisions INTEGER NOT NULL, answered INTEGER, errors INTEGER, summary TEXT,
        spec TEXT NOT NULL, thresholds TEXT NOT NULL, dir TEXT, tool_version TEXT NOT NULL,
        started_at TEXT NOT NULL, finished_at TEXT);
      CREATE TABLE decisions (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        endpoint TEXT NOT NULL DEFAULT '', case_id TEXT NOT NULL, workflow TEXT NOT NULL,
        question TEXT NOT NULL, type TEXT NOT NULL, predicted TEXT, answer TEXT, confidence REAL,
        gold TEXT NOT NULL, gold_probabilities TEXT NOT NULL, correct INTEGER NOT NULL, kl REAL,
        brier REAL, latency_ms REAL, attempts INTEGER NOT NULL, input_tokens INTEGER,
        calibrated INTEGER, error_kind TEXT, error_message TEXT, native TEXT, warnings TEXT,
        extra TEXT, PRIMARY KEY (run_id, endpoint, case_id, question));
      INSERT INTO runs VALUES ('r1', 'f', 'w', NULL, 'e', NULL, 'systemone', 'm', NULL, 'd',
        'rev', 'file', 'completed', 3, 3, 3, 0, NULL, '{}', '[]', NULL, '0.1.0', 't', NULL);
      INSERT INTO decisions (run_id, case_id, workflow, question, type, gold, gold_probabilities,
        correct, kl, brier, attempts) VALUES
        ('r1', 'c1', 'w', 'q', 'noul', 'true', '{"true":1,"false":0}', 1, 0.1, 0.02, 1),
        ('r1', 'c2', 'w', 'q', 'noul', 'true', '{"true":1,"false":0}', 0, 2.3, 1.6, 1),
        ('r1', 'c3', 'w', 'q', 'noul', '', 'null', 0, NULL, NULL, 1);
      PRAGMA user_version = 4;
    `);
    old.close();
    const index = openIndex(path);
    try {
      const version = index.db.prepare("PRAGMA user_version").get() as { user_version: number };
      assert.equal(version.user_version, INDEX_SCHEMA_VERSION);
      const rows = index.db.prepare(
        "SELECT case_id, gold, gold_probabilities, correct FROM decisions ORDER BY rowid",
      ).all().map((r) => ({ ...r }));
      assert.deepEqual(rows, [
        { case_id: "c1", gold: "true", gold_probabilities: '{"true":1,"false":0}', correct: 1 },
        { case_id: "c2", gold: "true", gold_probabilities: '{"true":1,"false":0}', correct: 0 },
        { case_id: "c3", gold: null, gold_probabilities: null, correct: null },
      ]);
      const { accuracy } = index.db.prepare("SELECT avg(correct) AS accuracy FROM decisions")
        .get() as { accuracy: number };
      assert.equal(accuracy, 0.5);
      // The rebuilt table keeps the explorer's indexes.
      const names = index.db.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'decisions'",
      ).all().map((r) => String(r.name));
      assert.ok(names.includes("decisions_by_outcome_confidence"), names.join(", "));
      assert.equal(runDecisions(index, "r1")[2]?.correct, null);
    } finally {
      index.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
