// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import type { Question } from "../dataset/schemas.ts";
import { AnswerValidationError } from "./errors.ts";
import { parseJsonBody, parseSystemOneReply } from "./schemas.ts";

const questions: Record<string, Question> = {
  team: { type: "choice", instructions: "Which team?", criteria: { billing: "b", shipping: null } },
  level: { type: "score", instructions: "How bad?", criteria: ["low", "mid", "high"] },
  spam: { type: "noul", instructions: "Spam?" },
};

function good(): Record<string, unknown> {
  return {
    model: "m",
    answers: {
      team: {
        type: "choice",
        choice: "billing",
        probabilities: { billing: 0.7, shipping: 0.3 },
        confidence: 0.4,
      },
      level: {
        type: "score",
        score: 1,
        probabilities: { "0": 0.2, "1": 0.6, "2": 0.2 },
        confidence: 0.4,
      },
      spam: { type: "noul", noul: 0.25 },
    },
    usage: { input_tokens: 42, output_tokens: 0 },
  };
}

function issuesOf(body: unknown): string[] {
  try {
    parseSystemOneReply(body, questions);
  } catch (error) {
    assert.ok(error instanceof AnswerValidationError);
    return error.issues;
  }
  assert.fail("expected AnswerValidationError");
}

Deno.test("parseSystemOneReply() normalises a valid reply", () => {
  const reply = parseSystemOneReply(good(), questions);
  assert.deepEqual(reply.answers.spam?.probabilities, { true: 0.25, false: 0.75 });
  assert.equal(reply.answers.spam?.probability, 0.75);
  assert.equal(reply.answers.team?.probability, 0.7);
  assert.equal(reply.answers.level?.calibrated, true);
  assert.equal(reply.inputTokens, 42);
  assert.equal(reply.model, "m");
});

Deno.test("parseSystemOneReply() rejects malformed answers with the reason", async (t) => {
  const table: [string, (b: any) => void, RegExp][] = [
    ["missing answers", (b) => delete b.answers, /answers/],
    ["missing answer", (b) => delete b.answers.spam, /answers\.spam: missing/],
    ["wrong type", (b) => (b.answers.spam.type = "choice"), /answers\.spam\.type/],
    [
      "choice missing an option",
      (b) => delete b.answers.team.probabilities.shipping,
      /missing "shipping"/,
    ],
    ["choice extra option", (b) => (b.answers.team.probabilities.other = 0), /unexpected "other"/],
    [
      "score missing a level",
      (b) => (b.answers.level.probabilities = { "0": 0.5, "1": 0.5 }),
      /missing "2"/,
    ],
    [
      "probability above 1",
      (b) => (b.answers.team.probabilities = { billing: 1.2, shipping: -0.2 }),
      /not a finite number in \[0, 1\]/,
    ],
    ["noul out of range", (b) => (b.answers.spam.noul = 1.5), /answers\.spam\.noul/],
    ["noul not a number", (b) => (b.answers.spam.noul = "0.5"), /answers\.spam\.noul/],
    [
      "sum off",
      (b) => (b.answers.team.probabilities = { billing: 0.7, shipping: 0.2 }),
      /sum to 0\.9/,
    ],
    [
      "non-finite",
      (b) => (b.answers.level.probabilities["1"] = null),
      /answers\.level\.probabilities\.1/,
    ],
  ];
  for (const [name, mutate, pattern] of table) {
    await t.step(name, () => {
      const body = good();
      mutate(body);
      const issues = issuesOf(body);
      assert.ok(issues.some((i) => pattern.test(i)), issues.join("; "));
    });
  }
});

Deno.test("parseSystemOneReply() accepts a sum within 1 ± 1e-3 without renormalising", () => {
  const body = good() as any;
  body.answers.team.probabilities = { billing: 0.7004, shipping: 0.3 };
  const reply = parseSystemOneReply(body, questions);
  assert.equal(reply.answers.team?.probabilities.billing, 0.7004);
});

Deno.test("parseSystemOneReply() keeps dohnuts' native block and flags a low fit_mass", () => {
  const body = good() as any;
  body.answers.level.native = {
    confidence: 0.6,
    certainty: 0.2,
    level_fit: [0.1, 0.3, 0.1],
    fit_mass: 0.5,
  };
  const reply = parseSystemOneReply(body, questions);
  assert.equal(reply.answers.level?.native?.fit_mass, 0.5);
  assert.match(reply.answers.level?.warnings?.[0] ?? "", /low fit_mass 0\.50/);
});

Deno.test("parseJsonBody() turns invalid JSON into a malformed-answer error", () => {
  assert.throws(() => parseJsonBody('{"answers": {'), AnswerValidationError);
});
