import assert from "node:assert/strict";
import { errored, record, spec } from "../../tests/records_fixtures.ts";
import { answeredCases, ResumeMismatchError, specDifferences } from "./resume.ts";

Deno.test("`specDifferences()` names each fingerprinted field that differs", async (t) => {
  const table = [
    { change: { revision: "f".repeat(40) }, field: "dataset revision" },
    { change: { dataset: "other/data" }, field: "dataset" },
    { change: { endpoint: "http://127.0.0.1:9090/v1/systemone" }, field: "endpoint" },
    { change: { engine: "pcd" }, field: "engine" },
    { change: { model: "other" }, field: "model" },
    { change: { state_encoding: "text" as const }, field: "state encoding" },
    { change: { questions_sha256: "c".repeat(64) }, field: "questions" },
    { change: { cases: 5, case_ids_sha256: "d".repeat(64) }, field: "cases" },
  ];
  for (const row of table) {
    await t.step(row.field, () => {
      const current = spec({ ...row.change, fingerprint: "fedcba9876543210" });
      assert.deepEqual(specDifferences(spec(), current).map((d) => d.field), [row.field]);
    });
  }
  await t.step("nothing that the fingerprint ignores (parallelism, timeout)", () => {
    assert.deepEqual(specDifferences(spec(), spec({ parallel: 16, timeout_ms: 5 })), []);
  });
  await t.step("a fingerprint that differs with equal fields", () => {
    const diffs = specDifferences(spec(), spec({ fingerprint: "ffffffffffffffff" }));
    assert.deepEqual(diffs.map((d) => d.field), ["fingerprint"]);
  });
});

Deno.test("`ResumeMismatchError` says what differs, recorded and now, and the fix", () => {
  const error = new ResumeMismatchError("runs/x", specDifferences(spec(), spec({ model: "b" })));
  assert.equal(
    error.message,
    'Cannot resume run "runs/x": its configuration differs — model: recorded "m", now "b" (pass the --model the run started with)',
  );
});

Deno.test("`answeredCases()` keeps only cases answered without error on every question", () => {
  const expected = new Map([
    ["c1", ["q1", "q2"]],
    ["c2", ["q1", "q2"]],
    ["c3", ["q1", "q2"]],
    ["c4", ["q1", "q2"]],
  ]);
  const records = [
    record({ case: "c1", question: "q1" }),
    record({ case: "c1", question: "q2" }),
    errored({ case: "c2", question: "q1" }), // errored: asked again
    errored({ case: "c2", question: "q2" }),
    record({ case: "c3", question: "q1" }), // torn after its first line: asked again
    record({ case: "c9", question: "q1" }), // not in the selection
    record({ case: "c9", question: "q2" }),
    errored({ case: "c4", question: "q2" }), // answered later: the last record wins
    record({ case: "c4", question: "q2", confidence: 0.9 }),
    record({ case: "c4", question: "q1" }),
  ];
  const kept = answeredCases(records, expected);
  assert.deepEqual([...kept.keys()], ["c1", "c4"]);
  assert.deepEqual(kept.get("c4")?.map((r) => [r.question, r.confidence]), [["q1", 0.8], [
    "q2",
    0.9,
  ]]);
});
