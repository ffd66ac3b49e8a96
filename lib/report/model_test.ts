import assert from "node:assert/strict";
import { errored, record } from "../../tests/records_fixtures.ts";
import { addWorkflowRows, type KnownRows, reportBreakdowns } from "./model.ts";

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

Deno.test("rows of a finished workflow computed ahead are the rows the breakdowns give", () => {
  const all = records();
  const known: KnownRows = { byWorkflow: new Map(), byQuestion: new Map() };
  addWorkflowRows(known, all.filter((r) => r.workflow === "w1"), 3);
  assert.deepEqual([...known.byWorkflow.keys()], ["w1"]);
  assert.deepEqual([...known.byQuestion.keys()], ["w1/q1", "w1/q2"]);
  const fresh = reportBreakdowns(all, 3);
  const ahead = reportBreakdowns(all, 3, known);
  assert.deepEqual(ahead, fresh);
  // The known rows are used as they are, not computed again.
  assert.equal(ahead.byWorkflow[0], known.byWorkflow.get("w1"));
  assert.equal(ahead.byQuestion[1], known.byQuestion.get("w1/q2"));
  assert.notEqual(ahead.byWorkflow[1], undefined);
});

Deno.test("decisions of more than one workflow add no rows ahead", () => {
  const known: KnownRows = { byWorkflow: new Map(), byQuestion: new Map() };
  addWorkflowRows(known, records(), 3);
  addWorkflowRows(known, [], 3);
  assert.equal(known.byWorkflow.size + known.byQuestion.size, 0);
});
