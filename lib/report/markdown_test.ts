import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import { inCaseOrder } from "../record/mod.ts";
import { caseTrace, markdownReport, markdownSections } from "./markdown.ts";
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

Deno.test("`markdownReport()` writes the same trace from cases' lines rendered beforehand", () => {
  const records = [
    record({ case: "c1", question: "q1" }),
    record({ case: "c1", question: "q2", correct: false, answer: "true" }),
    errored({ case: "c2", question: "q1" }),
    record({ case: "c3", question: "q1", gold: null, gold_probabilities: null }),
  ];
  const states = { c1: { ticket: "refund please" }, c2: "a plain text state", c3: { n: 1 } };
  const report = buildReport(runJson(records), records, info as never);
  const whole = markdownReport(report, { records, states });
  assert.match(whole, /c2 {2}a plain text state\n {2}q1 \(.*\) ! pred — gold .* {2}error /);
  // Rendered one case at a time (two of the three), as a run does while it is answered.
  const traces = new Map([
    ["c1", caseTrace(records.slice(0, 2), states.c1)],
    ["c3", caseTrace(records.slice(3), states.c3)],
  ]);
  assert.equal(markdownReport(report, { records, states, traces }), whole);
  // A rendered case is taken as given: the lines come from the map, not the records.
  const other = markdownReport(report, {
    records,
    states,
    traces: new Map([["c2", "c2 (given)"]]),
  });
  assert.match(other, /\nc2 \(given\)\nc3 /);
  assert.equal(caseTrace([]), "");
});

Deno.test("`markdownReport()` writes terminal escapes and NUL bytes from the data as visible escapes", () => {
  const hostile = "\x1b]0;owned\x07\x1b[2J\0\r\x9b31m";
  const records = [
    record({ case: `c${hostile}`, question: `q${hostile}`, workflow: `w${hostile}` }),
    record({
      case: "c2",
      question: `q${hostile}`,
      correct: false,
      confidence: 0.95,
      answer: `a${hostile}`,
    }),
    errored({ case: "c3", error: { kind: "malformed", message: `bad ${hostile}` } }),
  ];
  const run = runJson(records, { fatal: `stopped ${hostile}`, status: "incomplete" });
  const md = markdownReport(buildReport(run, records, info as never), {
    records: inCaseOrder(records),
    states: { c2: `state ${hostile}` },
  });
  // Only line feeds and tabs remain of the control characters (C0, DEL and C1).
  assert.doesNotMatch(md, /(?![\n\t])\p{Cc}/u);
  assert.ok(md.includes("c\\x1b]0;owned\\x07\\x1b[2J\\x00\\x0d\\x9b31m"), "the case id");
  for (const shown of ["q\\x1b", "w\\x1b", "a\\x1b", "bad \\x1b", "stopped \\x1b", "state \\x1b"]) {
    assert.ok(md.includes(shown), shown);
  }
});

Deno.test("`markdownSections()` around each case's trace line and a newline is `markdownReport()`", () => {
  const records = [
    record({ case: "c1", question: "q1" }),
    record({ case: "c1", question: "q2", correct: false, answer: "true" }),
    errored({ case: "c2", question: "q1" }),
  ];
  const states = { c1: { ticket: "refund please" }, c2: "a plain text state" };
  const report = buildReport(runJson(records), records, info as never);
  const { head, tail } = markdownSections(report);
  const trace = caseTrace(records.slice(0, 2), states.c1) + "\n" +
    caseTrace(records.slice(2), states.c2) + "\n";
  assert.equal(head + "\n" + trace + tail, markdownReport(report, { records, states }));
  const empty = buildReport(runJson([]), [], info as never);
  const sections = markdownSections(empty);
  assert.equal(sections.head + "\n" + sections.tail, markdownReport(empty));
});

Deno.test("`buildReport()` gives the same figures whatever order the decisions were answered in", () => {
  const records = Array.from({ length: 30 }, (_, i) =>
    record({
      case: `c${String(i).padStart(2, "0")}`,
      workflow: i % 3 ? "w1" : "w2",
      question: "q1",
      correct: i % 4 !== 0,
    }));
  const shuffled = [...records.slice(17), ...records.slice(0, 17).reverse()];
  const run = runJson(records, { summary: null });
  const a = buildReport(run, records, info as never);
  const b = buildReport(run, shuffled, info as never);
  assert.deepEqual(b.byWorkflow, a.byWorkflow);
  assert.deepEqual(b.byQuestion, a.byQuestion);
  assert.deepEqual(b.summary, a.summary);
  assert.ok(a.byWorkflow.some((g) => g.intervals.accuracy !== null), "intervals are drawn");
  assert.equal(markdownReport(b), markdownReport(a));
});
