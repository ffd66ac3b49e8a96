import assert from "node:assert/strict";
import { errored, record, runJson } from "../../tests/records_fixtures.ts";
import type { DecisionRecord } from "../record/mod.ts";
import { markdownSections } from "../report/mod.ts";
import { RunAccumulator } from "./_collect.ts";

/** Case i of a synthetic run: five questions, three lanes, a few errors and warnings. */
function caseRecords(i: number): DecisionRecord[] {
  const id = `c${String(i).padStart(6, "0")}`;
  const workflow = `w${i % 3}`;
  return Array.from(
    { length: 5 },
    (_, j) =>
      i % 17 === 0 && j === 0 ? errored({ case: id, workflow, question: `q${j}` }) : record({
        case: id,
        workflow,
        question: `q${j}`,
        correct: (i * 7 + j) % 3 !== 0,
        confidence: 0.5 + ((i * 13 + j) % 50) / 100,
        ...(i % 11 === 0 ? { warnings: [`low fit_mass 0.${i % 9}: no level fits`] } : {}),
      }),
  );
}

/** Feeds cases [from, to) in blocks of eight answered in reverse, as parallel requests return. */
function feed(acc: RunAccumulator, from: number, to: number): void {
  for (let block = from; block < to; block += 8) {
    for (let i = Math.min(block + 8, to) - 1; i >= block; i--) {
      acc.case({ item: { id: `c${i}` } as never, index: i, records: caseRecords(i), asked: null });
    }
  }
}

const info = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  license: "Apache-2.0",
  url: "https://huggingface.co/datasets/LocalLLaMA/typed-decisions",
  split: "test" as const,
  sha256: "0".repeat(64),
  rows: 6,
};

const workflow = {
  seed: 5,
  thresholds: [
    { metric: "accuracy", question: "q1", op: ">=" as const, limit: 0.5, bound: "lower" as const },
  ],
};

Deno.test("a run's accumulator state does not grow with the number of cases", () => {
  const acc = new RunAccumulator(workflow, { resamples: 20, sampleDecisions: 500 });
  feed(acc, 0, 400);
  const small = { bytes: acc.bytes, ...acc.reportState, waiting: acc.waiting };
  feed(acc, 400, 4000);
  const large = { bytes: acc.bytes, ...acc.reportState, waiting: acc.waiting };
  assert.equal(acc.cases, 4000);
  assert.equal(large.bytes, small.bytes, "metric and threshold accumulators");
  assert.equal(large.entries, small.entries, "error and warning kinds, disagreements, groups");
  assert.ok(large.sampled <= 500 && large.sampled >= 495, `sample of ${large.sampled}`);
  assert.equal(large.waiting, 0, "no case left in the reorder window");
  const report = acc.report(runJson([], { summary: null }), info);
  assert.equal(report.summary.decisions, 20_000);
  assert.equal(report.asked, 4000);
  assert.deepEqual(report.sample, { decisions: large.sampled, of: 20_000, cap: 500 });
  assert.equal(report.disagreements.length, 50);
  assert.equal(report.errors[0]?.cases, 236);
  assert.ok(report.points.length <= large.sampled && report.points.length > 450);
  assert.equal(acc.thresholds().length, 1);
  assert.match(
    markdownSections(report).head,
    /Fitted on a sample of at most 500 decisions \(\d+ of 20,000, whole cases/,
  );
});

Deno.test("a run's accumulator gives the same figures whatever order cases are answered in", () => {
  const inOrder = new RunAccumulator(workflow, { resamples: 50 });
  for (let i = 0; i < 120; i++) {
    inOrder.case({ item: {} as never, index: i, records: caseRecords(i), asked: null });
  }
  const shuffled = new RunAccumulator(workflow, { resamples: 50 });
  feed(shuffled, 0, 120);
  assert.deepEqual(shuffled.summary(), inOrder.summary());
  assert.deepEqual(shuffled.thresholds(), inOrder.thresholds());
  const run = runJson([], { summary: null });
  assert.deepEqual(shuffled.report(run, info), inOrder.report(run, info));
});
