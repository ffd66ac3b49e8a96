import assert from "node:assert/strict";
import { loadDataset } from "../dataset/mod.ts";
import type { Case } from "../dataset/schemas.ts";
import { compileModel } from "./predict.ts";
import { heldOutIds, trainModel } from "./train.ts";

async function smallTrainSet(): Promise<Case[]> {
  const { cases } = await loadDataset({ split: "train" });
  const perWorkflow = new Map<string, number>();
  return cases.filter((c) => {
    const n = perWorkflow.get(c.workflow) ?? 0;
    perWorkflow.set(c.workflow, n + 1);
    return n < 25;
  });
}

Deno.test("`trainModel()` gives identical weights on two runs over the same cases", async () => {
  const cases = await smallTrainSet();
  const options = { maxIterations: 60 };
  const a = trainModel(cases, options);
  const b = trainModel(cases, options);
  assert.deepEqual(a.model, b.model);
  assert.deepEqual(a.heldOut, b.heldOut);
  assert.equal(a.model.workflows.length, 4);
});

Deno.test("`trainModel()` records its split, settings and held-out figures", async () => {
  const cases = await smallTrainSet();
  const result = trainModel(cases, { maxIterations: 60, l2: 0.01 });
  assert.deepEqual(result.split, { fit: 80, heldOut: 20 });
  assert.equal(result.hyperParameters.l2, 0.01);
  assert.equal(result.heldOut.overall.n, 100);
  assert.equal(Object.keys(result.heldOut.byQuestion).length, 20);
  const { accuracy, kl, brier } = result.heldOut.overall;
  assert.ok(accuracy >= 0 && accuracy <= 1 && kl >= 0 && brier >= 0 && brier <= 2);
  for (const workflow of result.model.workflows) {
    for (const question of workflow.questions) {
      assert.equal(question.weights.length, workflow.features.length * question.options.length);
      // quantised to the 0.0001 grid
      assert.ok(question.weights.every((w) => Math.abs(w * 1e4 - Math.round(w * 1e4)) < 1e-6));
      assert.ok(question.temperature >= 0.25 && question.temperature <= 4);
    }
  }
});

Deno.test("`trainModel()` output predicts the questions of every workflow it saw", async () => {
  const cases = await smallTrainSet();
  const compiled = compileModel(trainModel(cases, { maxIterations: 30 }).model);
  for (const c of cases.slice(0, 100)) {
    const answers = compiled.predict(c.state, c.questions);
    assert.deepEqual(Object.keys(answers), Object.keys(c.questions));
  }
});

Deno.test("`trainModel()` refuses no cases and cases of one workflow asking different questions", async () => {
  assert.throws(() => trainModel([]), RangeError);
  const [first, second] = (await smallTrainSet()).slice(0, 2) as [Case, Case];
  const { action: _dropped, ...fewer } = second.questions;
  assert.throws(
    () => trainModel([first, { ...second, questions: fewer }]),
    /asks different questions/,
  );
});

Deno.test("`heldOutIds()` takes a seeded, reproducible fraction of the ids", () => {
  const ids = Array.from({ length: 100 }, (_, i) => `case_${i}`);
  const a = heldOutIds(ids, { seed: 7, fraction: 0.2 });
  assert.equal(a.size, 20);
  assert.deepEqual(
    [...a].sort(),
    [...heldOutIds([...ids].reverse(), { seed: 7, fraction: 0.2 })].sort(),
  );
  assert.notDeepEqual([...a].sort(), [...heldOutIds(ids, { seed: 8, fraction: 0.2 })].sort());
});
