import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { markdownReport } from "./markdown.ts";
import { buildReport } from "./model.ts";

const info = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  license: "Apache-2.0",
  url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
  split: "test",
};

/** The Markdown alignment row of the table whose header starts with `first`. */
function alignment(md: string, first: string): string {
  const lines = md.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  return lines[at + 1] ?? "";
}

Deno.test("`markdownReport()` aligns text columns left and numbers right", () => {
  const records = [
    record({ case: "c1", question: "q1" }),
    record({ case: "c2", question: "q1", correct: false, confidence: 0.95, answer: "true" }),
    errored({ case: "c3", question: "q1" }),
  ];
  const run = runJson(records, {
    thresholds: [{ metric: "accuracy", op: ">=", limit: 0.6, value: 0.3, pass: false }],
  });
  const md = markdownReport(buildReport(run, records, info as never));
  // case, question, predicted, confidence, gold, gold p(pred)
  assert.equal(alignment(md, "case"), "|---|---|---|---:|---|---:|");
  // metric, condition, value, result
  assert.equal(alignment(md, "metric"), "|---|---:|---:|", "headline: metric, value, interval");
  assert.match(md, /\| metric \| condition \| value \| result \|\n\|---\|---\|---:\|---\|/);
  // kind, decisions, cases, example
  assert.equal(alignment(md, "kind"), "|---|---:|---:|---|");
});
