import assert from "node:assert/strict";
import { errored, loadedRun, record } from "../../tests/records_fixtures.ts";
import { compareRuns } from "./compare.ts";
import { comparisonReport, formatPValue } from "./compare_report.ts";

Deno.test("`formatPValue()` prints an underflowed p-value as a bound, never 0", async (t) => {
  const table: [number, string][] = [
    [1, "1.000"],
    [0.0625, "0.063"],
    [0.001, "0.001"],
    [0.00021, "2.1e-4"],
    [1e-300, "1.0e-300"],
    [5e-324, "< 1e-300"],
    [0, "< 1e-300"],
  ];
  for (const [p, text] of table) {
    await t.step(`${p} → ${text}`, () => assert.equal(formatPValue(p), text));
  }
});

Deno.test("`comparisonReport()` shows both runs' accuracy, the signed difference and McNemar counts", async () => {
  const a = loadedRun("A", [
    record({ case: "c1" }),
    errored({ case: "c2" }),
    record({ case: "c3", correct: false }),
  ]);
  const b = loadedRun("B", [
    record({ case: "c1" }),
    record({ case: "c2" }),
    record({ case: "c3" }),
  ]);
  const c = await compareRuns(a, b, { resamples: 50 });
  const text = comparisonReport(c);
  assert.match(text, /^decibench compare · 3 shared decisions in 3 cases/);
  assert.match(text, /accuracy +33\.3%.* 100\.0%/);
  assert.match(text, /accuracy difference \(B − A\): \+66\.7 points \[/);
  assert.match(
    text,
    /McNemar: only A right 0, only B right 2 \(both right 1, both wrong 0\); exact p = 0\.500/,
  );
  const md = comparisonReport(c, { markdown: true });
  assert.match(md, /^# decibench comparison/);
  assert.match(
    md,
    /\| customer_service\/q1 \| 3 \| 33\.3% \| 100\.0% \| \+66\.7 \| 0 \| 2 \| 0\.500 \|/,
  );
});
