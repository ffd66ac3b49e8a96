import assert from "node:assert/strict";
import { loadedRun, record } from "../../tests/records_fixtures.ts";
import { compareRuns } from "./compare.ts";

Deno.test("`compareRuns()` scores both runs on the decisions they share only", async () => {
  const a = loadedRun("A", [record({ case: "c1" }), record({ case: "c2", correct: false })]);
  const b = loadedRun("B", [record({ case: "c2" }), record({ case: "c3" })], { model: "n" });
  const c = await compareRuns(a, b, { resamples: 20 });
  assert.equal(c.paired.shared, 1);
  assert.equal(c.paired.onlyInA, 1);
  assert.equal(c.paired.onlyInB, 1);
  assert.equal(c.a.summary.decisions, 1);
  assert.equal(c.a.summary.metrics.accuracy, 0);
  assert.equal(c.b.summary.metrics.accuracy, 1);
  assert.deepEqual(c.differences.map((d) => d.field), ["model"]);
});

Deno.test("`compareRuns()` refuses runs on different dataset revisions or with nothing shared", async () => {
  const a = loadedRun("A", [record()]);
  await assert.rejects(
    () => compareRuns(a, loadedRun("B", [record()], { revision: "f".repeat(40) })),
    /Cannot compare runs "A" and "B": they used different dataset revisions/,
  );
  await assert.rejects(
    () => compareRuns(a, loadedRun("B", [record({ case: "other" })])),
    /they share no decision/,
  );
});
