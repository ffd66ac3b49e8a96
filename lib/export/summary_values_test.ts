import assert from "node:assert/strict";
import { countOf, intervalOf, metricOf, SUMMARY_METRICS } from "./summary_values.ts";

Deno.test("`metricOf()` reads run.json version 2 (`metrics`) and version 1 (top-level) summaries", async (t) => {
  await t.step("version 2", () => {
    const summary = { metrics: { accuracy: 0.75, nll: null }, intervals: { accuracy: [0.7, 0.8] } };
    assert.equal(metricOf(summary, "accuracy"), 0.75);
    assert.equal(metricOf(summary, "nll"), null);
    assert.deepEqual(intervalOf(summary, "accuracy"), [0.7, 0.8]);
  });
  await t.step("version 1: no nll, which is n/a", () => {
    const summary = { accuracy: 0.5, kl: 0.3, intervals: { accuracy: [0.4, 0.6], kl: null } };
    assert.equal(metricOf(summary, "accuracy"), 0.5);
    assert.equal(metricOf(summary, "nll"), null);
    assert.equal(intervalOf(summary, "kl"), null);
    assert.equal(intervalOf(summary, "nll"), null);
  });
  await t.step("no summary, or a value that is not a finite number", () => {
    assert.equal(metricOf(null, "accuracy"), null);
    assert.equal(metricOf({ metrics: { accuracy: "0.5" } }, "accuracy"), null);
    assert.equal(intervalOf({ intervals: { accuracy: [0, "x"] } }, "accuracy"), null);
    assert.equal(countOf({ decisions: 2000 }, "decisions"), 2000);
    assert.equal(countOf(undefined, "decisions"), null);
  });
});

Deno.test("`SUMMARY_METRICS` lists every registered metric, nll included", () => {
  assert.deepEqual(SUMMARY_METRICS.map((m) => m.name).slice(0, 5), [
    "accuracy",
    "kl",
    "brier",
    "ece",
    "nll",
  ]);
});
