import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { DATASET_URL } from "../dataset/mod.ts";
import { buildReport } from "../report/mod.ts";
import { runPageReport } from "./run_report.ts";

Deno.test("`runPageReport()` streamed gives the report model's breakdowns, whatever the order", async () => {
  const records = Array.from({ length: 60 }, (_, i) => {
    const base = {
      case: `c${String(i % 20).padStart(2, "0")}`,
      workflow: i % 3 === 0 ? "billing" : "customer_service",
      question: `q${Math.floor(i / 20)}`,
    };
    return i % 13 === 5 ? errored(base) : record({
      ...base,
      correct: i % 4 !== 0,
      confidence: 0.5 + (i % 10) / 20,
    });
  });
  const run = runJson(records);
  const spec = run.spec;
  const report = buildReport(run, records, {
    dataset: spec.dataset,
    revision: spec.revision,
    license: spec.license,
    split: "test",
    url: DATASET_URL,
    sha256: "",
    rows: spec.cases,
  });
  // In case order the figures are the same numbers; in another order (each case's decisions
  // together) the same up to the order of floating-point sums.
  const byCase = Map.groupBy(records, (r) => r.case);
  const inOrder = [...byCase.keys()].sort().flatMap((c) => byCase.get(c) ?? []);
  const page = await runPageReport(run, inOrder);
  assert.deepEqual(page.byType, report.byType);
  assert.deepEqual(page.byWorkflow, report.byWorkflow);
  assert.deepEqual(page.byQuestion, report.byQuestion);
  const reordered = [...byCase.values()].reverse().flat();
  const streamed = await runPageReport(
    run,
    (async function* () {
      yield* reordered;
    })(),
  );
  assertClose(streamed.byQuestion, report.byQuestion);
  assertClose(streamed.byWorkflow, report.byWorkflow);
  assert.ok(page.charts.reliability.includes("<svg"));
  assert.equal((await runPageReport(run, [])).charts.histogram, "");
});

function assertClose(actual: unknown, expected: unknown, path = ""): void {
  if (typeof expected === "number" && typeof actual === "number") {
    assert.ok(Math.abs(actual - expected) <= 1e-9, `${path}: ${actual} is not ${expected}`);
    return;
  }
  if (typeof expected !== "object" || expected === null) {
    assert.equal(actual, expected, path);
    return;
  }
  assert.equal(typeof actual, "object", path);
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  assert.deepEqual(Object.keys(a), Object.keys(e), path);
  for (const key of Object.keys(e)) assertClose(a[key], e[key], `${path}.${key}`);
}
