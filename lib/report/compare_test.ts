import assert from "node:assert/strict";
import { loadedRun, record } from "../../tests/records_fixtures.ts";
import { pairedComparison, summarize } from "../metrics/mod.ts";
import { inCaseOrder } from "../record/mod.ts";
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

Deno.test("`compareRuns()` streamed gives what the whole-list comparison gives", async () => {
  const make = (seed: number) =>
    Array.from({ length: 90 }, (_, i) =>
      record({
        case: `c${String(Math.floor(i / 3)).padStart(2, "0")}`,
        question: `q${i % 3}`,
        workflow: i % 2 === 0 ? "billing" : "customer_service",
        correct: (i * seed) % 4 !== 0,
        confidence: 0.5 + ((i * seed) % 10) / 20,
        gold: i % 29 === 0 ? null : "true",
      }));
  const recordsA = make(3);
  const recordsB = make(5).filter((r) => r.case !== "c07");
  // B answered its cases in another order (each case's decisions together).
  const byCase = Map.groupBy(recordsB, (r) => r.case);
  const shuffledB = [...byCase.values()].reverse().flat();
  const a = loadedRun("A", recordsA);
  const b = loadedRun("B", shuffledB);
  const c = await compareRuns(a, b, { resamples: 50, seed: 4 });
  // The whole-list computation: labelled decisions in case order, those both runs hold.
  const key = (r: { case: string; question: string }) => `${r.case}/${r.question}`;
  const labelledA = inCaseOrder(recordsA.filter((r) => r.gold !== null));
  const labelledB = inCaseOrder(shuffledB.filter((r) => r.gold !== null));
  const inA = new Set(labelledA.map(key));
  const inB = new Set(labelledB.map(key));
  const options = { resamples: 50, seed: 4 };
  assert.deepEqual(c.paired, pairedComparison(labelledA, labelledB, options));
  assert.deepEqual(c.a.summary, summarize(labelledA.filter((r) => inB.has(key(r))), options));
  assert.deepEqual(c.b.summary, summarize(labelledB.filter((r) => inA.has(key(r))), options));
});
