import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { breakdown, BREAKDOWN_INTERVAL_METRICS, COLUMN_METRICS } from "../metrics/mod.ts";
import { buildReport } from "./model.ts";

const info = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  license: "Apache-2.0",
  url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
  split: "test" as const,
  sha256: "0".repeat(64),
  rows: 6,
};

/** Two workflows of three cases, two questions each, with a miss and an error in each. */
function records() {
  return ["w1", "w2"].flatMap((workflow) =>
    [1, 2, 3].flatMap((n) => {
      const c = `${workflow}-c${n}`;
      return [
        record({ case: c, workflow, question: "q1", correct: n !== 2, confidence: 0.5 + n / 10 }),
        n === 3
          ? errored({ case: c, workflow, question: "q2" })
          : record({ case: c, workflow, question: "q2", confidence: 0.9 - n / 10 }),
      ];
    })
  );
}

Deno.test("`buildReport()` breaks the decisions down by type, workflow and question, with accuracy's interval only", () => {
  const all = records();
  const report = buildReport(runJson(all), all, info, { seed: 3 });
  const options = {
    seed: 3,
    metrics: COLUMN_METRICS,
    intervalMetrics: BREAKDOWN_INTERVAL_METRICS,
  };
  assert.deepEqual(report.byWorkflow, breakdown(all, "workflow", options));
  assert.deepEqual(report.byQuestion, breakdown(all, "question", options));
  assert.deepEqual(report.byWorkflow.map((row) => row.key), ["w1", "w2"]);
  for (const row of [...report.byType, ...report.byWorkflow, ...report.byQuestion]) {
    assert.notEqual(row.intervals.accuracy, null, row.key);
    for (const name of ["kl", "brier", "ece", "nll"]) assert.equal(row.intervals[name], null);
  }
});
