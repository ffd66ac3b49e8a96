import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import type { RunStability } from "../record/mod.ts";
import { calibrationHtml, calibrationMarkdown, calibrationTerminal } from "./calibration.ts";
import { buildReport } from "./model.ts";

const info = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  license: "Apache-2.0",
  url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
  split: "test",
} as never;

const records = [
  record({ case: "c1", question: "q1" }),
  record({ case: "c2", question: "q1", correct: false, gold: "false", confidence: 0.8 }),
  record({
    case: "c3",
    question: "s",
    type: "score",
    predicted: { "0": 0.1, "1": 0.7, "2": 0.2 },
    answer: "1",
    confidence: 0.7,
    gold: "2",
    gold_probabilities: { "0": 0, "1": 0, "2": 1 },
    correct: false,
  }),
  errored({ case: "c4", question: "q1" }),
];

const stability: RunStability = {
  repeat: 3,
  parallel: [1, 4],
  complete: true,
  overall: {
    key: "all",
    decisions: 3,
    repeats: 12,
    flipped: 1,
    flipRate: 1 / 3,
    drift: { median: 0.01, p95: 0.05, max: 0.06 },
    errors: 0,
  },
  byParallel: [],
  byQuestion: [],
};

Deno.test("the calibration section names each measure and the label Brier's difference", () => {
  const report = buildReport(runJson(records), records, info);
  const md = calibrationMarkdown(report);
  for (
    const heading of [
      "## Calibration measures",
      "### Scorer profile",
      "### Brier decomposition (yes/no questions, against labels)",
      "### Selective prediction (risk–coverage)",
      "### What a temperature would fix",
    ]
  ) assert.ok(md.includes(`\n${heading}\n`) || md.startsWith(`${heading}\n`), heading);
  assert.match(md, /\*\*against labels\*\*/);
  assert.match(md, /\| Score MAE \(levels\) \| score_mae \| 0\.900 \|/);
  // no stability section without --repeat
  assert.doesNotMatch(md, /Stability under load/);
  const html = calibrationHtml(report);
  assert.match(html, /<b>against labels<\/b>/);
  assert.match(html, /<figcaption>Risk–coverage curve/);
  assert.doesNotMatch(html, /<script/);
  const terminal = calibrationTerminal(report).join("\n");
  assert.match(terminal, /^calibration ECE 15-bin /m);
  assert.match(terminal, /Murphy, vs labels/);
});

Deno.test("the stability section appears with --repeat's figures", () => {
  const report = buildReport(runJson(records, { stability }), records, info);
  const md = calibrationMarkdown(report);
  assert.match(md, /## Stability under load/);
  assert.match(md, /every case asked 3 times at each concurrency \(1, 4\)/);
  assert.match(md, /\| all \| 3 \| 12 \| 33\.3% \(1\) \| 0\.0100 \| 0\.0500 \| 0\.0600 \| 0 \|/);
  assert.match(calibrationHtml(report), /<h2>Stability under load<\/h2>/);
  assert.match(
    calibrationTerminal(report).join("\n"),
    /stability +×3 at parallel 1,4: top answer flips 33\.3%, drift median 0\.0100 p95 0\.0500 max 0\.0600/,
  );
});

Deno.test("a run with nothing answered draws no calibration chart or table", () => {
  const failed = [errored({ case: "c1" }), errored({ case: "c2" })];
  const report = buildReport(runJson(failed), failed, info);
  assert.match(calibrationMarkdown(report), /No decision was answered/);
  const html = calibrationHtml(report);
  assert.doesNotMatch(html, /<svg|<table/);
  assert.deepEqual(calibrationTerminal(report), []);
});
