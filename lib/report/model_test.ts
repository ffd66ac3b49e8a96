import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { breakdown, BREAKDOWN_INTERVAL_METRICS, COLUMN_METRICS } from "../metrics/mod.ts";
import { inCaseOrder, writeAtomic } from "../record/mod.ts";
import { htmlReport } from "./html.ts";
import { markdownReport } from "./markdown.ts";
import { buildReport, loadRunReport, REPORT_JSON_FILE } from "./model.ts";

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

Deno.test("`loadRunReport()` reads report.json back: the same report.md and report.html", async () => {
  const all = records();
  const report = buildReport(runJson(all), all, info);
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(await loadRunReport(dir), null, "no report.json yet");
    await writeAtomic(`${dir}/${REPORT_JSON_FILE}`, JSON.stringify(report));
    const loaded = await loadRunReport(dir);
    assert.ok(loaded !== null);
    assert.deepEqual(loaded, report);
    const sorted = inCaseOrder(all);
    assert.equal(
      markdownReport(loaded, { records: sorted }),
      markdownReport(report, { records: sorted }),
    );
    assert.equal(htmlReport(loaded), htmlReport(report));
    assert.ok(!("records" in loaded), "the model holds no decision");
    await writeAtomic(`${dir}/${REPORT_JSON_FILE}`, JSON.stringify({ ...report, version: 0 }));
    await assert.rejects(() => loadRunReport(dir), /field "version" is 0/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
