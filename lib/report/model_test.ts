import assert from "node:assert/strict";
import { errored, record } from "../../tests/records_fixtures.ts";
import type { PlannedCase } from "../metrics/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import { ReportAccumulator, reportBreakdowns } from "./model.ts";

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

/** The run's cases as planned: each case's workflow and its questions. */
function plan(all: DecisionRecord[]): PlannedCase[] {
  const out = new Map<string, PlannedCase & { questions: { question: string; type: string }[] }>();
  for (const r of all) {
    let c = out.get(r.case);
    if (!c) out.set(r.case, c = { case: r.case, workflow: r.workflow, questions: [] });
    c.questions.push({ question: r.question, type: r.type });
  }
  return [...out.values()];
}

/** Each case's decisions, cases in order. */
function byCase(all: DecisionRecord[]): DecisionRecord[][] {
  const out = new Map<string, DecisionRecord[]>();
  for (const r of all) out.set(r.case, [...out.get(r.case) ?? [], r]);
  return [...out.values()];
}

Deno.test("breakdowns from sums fed case by case, in any order, are the breakdowns of the decisions", () => {
  const all = records();
  const sums = new ReportAccumulator(plan(all), 3);
  const cases = byCase(all);
  // Answers arrive out of order: a case waits until those planned before it are in.
  for (const i of [2, 0, 5, 1, 4, 3]) sums.add(cases[i]!);
  assert.equal(sums.added, 6);
  assert.deepEqual(sums.breakdowns(all, 3), reportBreakdowns(all, 3));
});

Deno.test("the fed sums are what the breakdowns read; only accuracy is bootstrapped", () => {
  const all = records();
  const sums = new ReportAccumulator(plan(all), 3);
  // Fed every decision as a miss: the accuracy intervals show it.
  sums.add(all.map((r) => ({ ...r, correct: false })));
  const fed = sums.breakdowns(all, 3);
  const fresh = reportBreakdowns(all, 3);
  assert.deepEqual(fed.byType[0]!.intervals.accuracy, [0, 0]);
  assert.notDeepEqual(fresh.byType[0]!.intervals.accuracy, [0, 0]);
  // The values are the decisions' own, and the metrics shown without an interval have none.
  assert.deepEqual(fed.byType[0]!.metrics, fresh.byType[0]!.metrics);
  for (const row of [...fresh.byType, ...fresh.byWorkflow, ...fresh.byQuestion]) {
    assert.notEqual(row.intervals.accuracy, null, row.key);
    for (const name of ["kl", "brier", "ece", "nll"]) assert.equal(row.intervals[name], null);
  }
});

Deno.test("groups whose sums miss a case, or got a case that is not in the plan, are computed from the decisions", () => {
  const all = records();
  const fresh = reportBreakdowns(all, 3);
  // The last case never fed: every group it is in is computed at the end.
  const partial = new ReportAccumulator(plan(all), 3);
  partial.add(all.filter((r) => r.case !== "w2-c3"));
  assert.equal(partial.added, 5);
  assert.deepEqual(partial.breakdowns(all, 3), fresh);
  // A decision of a question the plan does not have for its case: its question's group takes
  // one case more than planned and is computed at the end.
  const planned = plan(all).map((c) =>
    c.case === "w1-c1" ? { ...c, questions: c.questions.slice(0, 1) } : c
  );
  const odd = new ReportAccumulator(planned, 3);
  odd.add(all);
  const rows = odd.breakdowns(all, 3);
  assert.deepEqual(rows.byQuestion, fresh.byQuestion);
  assert.deepEqual(rows.byWorkflow, fresh.byWorkflow);
  assert.deepEqual(rows.byType, fresh.byType);
});

Deno.test("sums made with another seed are not read", () => {
  const all = records();
  const sums = new ReportAccumulator(plan(all), 4);
  // Fed every decision as a miss: read, the accuracy intervals would be [0, 0].
  sums.add(all.map((r) => ({ ...r, correct: false })));
  assert.deepEqual(sums.breakdowns(all, 3), reportBreakdowns(all, 3));
  assert.notDeepEqual(sums.breakdowns(all, 4), reportBreakdowns(all, 4));
});
