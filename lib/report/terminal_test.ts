import assert from "node:assert/strict";
import { errored, record, runJson, spec } from "../../tests/records_fixtures.ts";
import { markdownReport } from "./markdown.ts";
import { buildReport } from "./model.ts";
import { terminalReport } from "./terminal.ts";

const info = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  license: "Apache-2.0",
  url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
  split: "test",
};

Deno.test("`terminalReport()` cuts a 100 KB lane name to 40 characters; report.md keeps it whole", () => {
  const lane = `lane-${"x".repeat(100_000)}`;
  const records = [
    record({ case: "c1", workflow: lane }),
    record({ case: "c2", workflow: lane, correct: false }),
    errored({ case: "c3", workflow: lane }),
  ];
  const run = runJson(records, {
    spec: spec({ workflow: lane }),
    thresholds: [{ metric: "accuracy", op: ">=", limit: 0.6, value: 0.5, pass: false, lane }],
  });
  const report = buildReport(run, records, info as never);
  const text = terminalReport(report);
  const longest = Math.max(...text.split("\n").map((line) => line.length));
  assert.ok(longest < 400, `longest line ${longest} characters`);
  assert.ok(text.includes(`${lane.slice(0, 39)}…`), "the name's first 39 characters and …");
  assert.ok(markdownReport(report).includes(`| ${lane} |`), "report.md: the full name");
});
