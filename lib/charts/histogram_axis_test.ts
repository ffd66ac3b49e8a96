import assert from "node:assert/strict";
import { parseHTML } from "linkedom";
import { confidenceHistogram } from "./charts.ts";

Deno.test("`confidenceHistogram()` labels thousands of decisions on a y axis that fits its margin", () => {
  // 9,000 decisions, 5,551 of them in one bin: the tallest tick is in the thousands.
  const records = Array.from({ length: 9000 }, (_, i) => ({
    confidence: i < 5551 ? 0.225 : 0.5,
    correct: i % 3 === 0,
  }));
  const svg = confidenceHistogram(records);
  const window = parseHTML(`<!doctype html><html><body>${svg}</body></html>`);
  const { document } = window as unknown as {
    document: { querySelectorAll(selector: string): Iterable<{ textContent: string | null }> };
  };
  const axis = [...document.querySelectorAll("g[aria-label='y-axis tick label'] text")]
    .map((t) => t.textContent ?? "");
  assert.ok(axis.length > 2, `y tick labels: ${axis.join(" ")}`);
  assert.ok(axis.some((label) => /k$/.test(label)), `thousands as SI: ${axis.join(" ")}`);
  for (const label of axis) {
    assert.ok(!label.includes(","), `"${label}" is not a grouped number`);
    assert.ok(label.length <= 5, `"${label}" fits the 48-pixel margin`);
    assert.notEqual(label, "0k");
  }
});
