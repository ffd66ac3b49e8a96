import assert from "node:assert/strict";
import type { Question } from "../dataset/schemas.ts";
import { identifyWorkflow, type WorkflowSignature } from "./identify.ts";

const urgency: Question = { type: "score", instructions: "How urgent?", criteria: ["low", "high"] };
const signatures: WorkflowSignature[] = [
  {
    workflow: "support",
    questions: new Map([["urgency", ["0", "1"]], ["refund", ["true", "false"]]]),
  },
  {
    workflow: "security",
    questions: new Map([["urgency", ["0", "1"]], ["contain", ["true", "false"]]]),
  },
];

Deno.test("`identifyWorkflow()` finds the workflow by its question names and options", async (t) => {
  await t.step("all questions", () => {
    const questions = { urgency, contain: { type: "noul", instructions: "Contain?" } as Question };
    assert.equal(identifyWorkflow(questions, signatures), 1);
  });
  await t.step("a subset only one workflow has", () => {
    const questions = { refund: { type: "noul", instructions: "Refund?" } as Question };
    assert.equal(identifyWorkflow(questions, signatures), 0);
  });
});

Deno.test("`identifyWorkflow()` refuses questions it cannot place", async (t) => {
  const cases: [string, Record<string, Question>, RegExp][] = [
    ["no questions", {}, /asks no questions/],
    ["unknown name", { colour: { type: "noul", instructions: "Red?" } }, /no trained workflow/],
    ["ambiguous subset", { urgency }, /match several workflows/],
    [
      "same name, other options",
      { urgency: { type: "score", instructions: "How urgent?", criteria: ["a", "b", "c"] } },
      /no trained workflow asks them with these options/,
    ],
  ];
  for (const [name, questions, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => identifyWorkflow(questions, signatures), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
