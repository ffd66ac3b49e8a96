import assert from "node:assert/strict";
import { repeatPlan } from "./stability.ts";

Deno.test("`repeatPlan()` asks K times at each concurrency, the official pass counted at its own", async (t) => {
  await t.step("no sweep: K − 1 passes at the run's concurrency", () => {
    assert.deepEqual(repeatPlan({ repeat: 3, parallel: 8 }), [
      { parallel: 8, pass: 2 },
      { parallel: 8, pass: 3 },
    ]);
  });
  await t.step("a sweep including the run's concurrency", () => {
    assert.deepEqual(repeatPlan({ repeat: 2, parallel: 4, parallelSweep: [1, 4] }), [
      { parallel: 1, pass: 1 },
      { parallel: 1, pass: 2 },
      { parallel: 4, pass: 2 },
    ]);
  });
  await t.step("--repeat 1 without a sweep asks nothing more", () => {
    assert.deepEqual(repeatPlan({ repeat: 1, parallel: 4 }), []);
  });
});
