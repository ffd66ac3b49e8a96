import assert from "node:assert/strict";
import { TICKET_QUESTIONS } from "../dataset/_fixtures.ts";
import { defineWorkflow } from "./define.ts";
import { validateWorkflow, WorkflowError } from "./load.ts";

// The workflow contract of the question-set issue, exactly as it is written there.
const TICKETS = defineWorkflow({
  name: "tickets",
  endpoint: { baseUrl: "http://127.0.0.1:8080" },
  dataset: {
    path: "tickets.csv",
    id: "ticket_id",
    state: "body",
    lane: "queue",
  },
  questions: {
    urgent: { type: "noul", instructions: "Does this need a reply today?", gold: "is_urgent" },
    team: {
      type: "choice",
      instructions: "Which team?",
      criteria: { billing: "…", shipping: "…" },
      gold: "team",
    },
    mood: {
      type: "score",
      instructions: "How upset?",
      criteria: ["calm", "annoyed", "angry"],
      gold: "mood",
    },
  },
  thresholds: [{ metric: "accuracy", question: "urgent", op: ">=", limit: 0.9, bound: "lower" }],
});

function refusal(value: unknown, file = "w.ts"): string {
  try {
    validateWorkflow(value, file);
  } catch (error) {
    if (error instanceof WorkflowError) return error.message;
    throw error;
  }
  throw new Error("expected a WorkflowError");
}

Deno.test("`validateWorkflow()` accepts the question-set contract and resolves the path against the workflow file", () => {
  const workflow = validateWorkflow(TICKETS, "examples/support/tickets.ts");
  assert.equal(workflow.dataset?.path, "examples/support/tickets.csv");
  assert.deepEqual(workflow.dataset?.state, "body");
  assert.deepEqual(Object.keys(workflow.questions ?? {}), ["urgent", "team", "mood"]);
  assert.deepEqual(workflow.thresholds[0], {
    metric: "accuracy",
    question: "urgent",
    op: ">=",
    limit: 0.9,
    bound: "lower",
  });
  const absolute = validateWorkflow({
    ...TICKETS,
    dataset: { ...TICKETS.dataset, path: "/data/t.csv" },
  }, "x/w.ts");
  assert.equal(absolute.dataset?.path, "/data/t.csv");
});

Deno.test("`validateWorkflow()` refuses a question-set workflow that cannot work, naming the field", async (t) => {
  await t.step("a dataset without questions", () => {
    const { questions: _, ...rest } = TICKETS;
    assert.match(refusal(rest), /field "questions": a dataset needs its questions/);
  });
  await t.step("questions without a dataset", () => {
    const { dataset: _, thresholds: __, ...rest } = TICKETS;
    assert.match(refusal(rest), /field "dataset": questions are asked of a dataset/);
  });
  await t.step("a file that is not .jsonl, .csv or .parquet", () => {
    assert.match(
      refusal({ ...TICKETS, dataset: { ...TICKETS.dataset, path: "tickets.xlsx" } }),
      /field "dataset.path": must name a .jsonl, .csv or .parquet file/,
    );
  });
  await t.step("a threshold on an undeclared question", () => {
    assert.match(
      refusal({
        ...TICKETS,
        thresholds: [{ metric: "accuracy", question: "urgnt", op: ">=", limit: 0.9 }],
      }),
      /field "thresholds.0.question": "urgnt" is not one of the questions \(urgent, team, mood\)/,
    );
  });
  await t.step("an unknown metric and an unknown bound", () => {
    const message = refusal({
      ...TICKETS,
      thresholds: [{ metric: "accurcy", op: ">=", limit: 0.9, bound: "lowest" }],
    });
    assert.match(
      message,
      /field "thresholds.0.metric": "accurcy" is not one of the \d+ allowed values \(did you mean "accuracy"\?\)/,
    );
    assert.match(
      message,
      /field "thresholds.0.bound": "lowest" is not one of the 3 allowed values \(did you mean "lower"\?\)/,
    );
  });
  await t.step("Typed Decisions selections with a dataset", () => {
    assert.match(
      refusal({ ...TICKETS, cases: { workflows: ["customer_service"] } }),
      /field "cases.workflows": selects Typed Decisions workflows; a dataset has lanes/,
    );
  });
  await t.step("a question with an unknown field, and integer-like option names", () => {
    assert.match(
      refusal({
        ...TICKETS,
        questions: { ...TICKET_QUESTIONS, urgent: { type: "noul", instructions: "x", label: "y" } },
      }),
      /field "questions.urgent" has an unknown key "label"/,
    );
    assert.match(
      refusal({
        ...TICKETS,
        questions: {
          team: { type: "choice", instructions: "x", criteria: { "1": "a", "2": "b" } },
        },
        thresholds: [],
      }),
      /field "questions.team.criteria": an option name is integer-like/,
    );
  });
});

Deno.test("`validateWorkflow()` takes Typed Decisions' `cases.questions`", () => {
  const workflow = validateWorkflow({
    name: "urgency-only",
    endpoint: { reference: { predictor: "fitted" } },
    cases: { questions: ["urgency"] },
  }, "w.ts");
  assert.deepEqual(workflow.cases.questions, ["urgency"]);
});
