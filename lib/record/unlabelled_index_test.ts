import assert from "node:assert/strict";
import { record, runJson } from "../../tests/records_fixtures.ts";
import { indexRun, openIndex, runDecisions } from "./sqlite_index.ts";

Deno.test("`runDecisions()` returns an unlabelled decision (gold null) as it was recorded", () => {
  const index = openIndex(":memory:");
  try {
    const records = [
      record({ case: "c1", question: "q1" }),
      record({
        case: "c2",
        question: "q1",
        gold: null,
        gold_probabilities: null,
        correct: false,
        kl: null,
        brier: null,
      }),
    ];
    const run = runJson(records);
    indexRun(index, run, records);
    assert.deepEqual(runDecisions(index, run.id), records);
  } finally {
    index.close();
  }
});
