import assert from "node:assert/strict";
import { formatIssues, SystemOneRequestSchema } from "./schemas.ts";

const noul = { type: "noul", instructions: "Is it fine?" };

function messageFor(body: unknown): string {
  const parsed = SystemOneRequestSchema.safeParse(body);
  assert.ok(!parsed.success, "expected the body to be refused");
  return formatIssues(parsed.error);
}

Deno.test("`SystemOneRequestSchema` refuses bad requests with a message naming the field", async (t) => {
  const choices = Array.from({ length: 256 }, (_, i) => `o${i}`);
  const cases: [string, unknown, string][] = [
    ["a list body", [], "expected a JSON object"],
    ["no state or questions", {}, "state: required"],
    ["a null state", { state: null, questions: { a: noul } }, "state: required"],
    ["a numeric model", { model: 3, state: 1, questions: { a: noul } }, "model: expected a string"],
    [
      "an unknown field",
      { state: 1, questions: { a: noul }, temperature: 0 },
      "temperature: unknown field",
    ],
    ["no questions", { state: 1 }, "questions: required: an object mapping question names"],
    ["a questions list", { state: 1, questions: [] }, "questions: expected an object mapping"],
    ["empty questions", { state: 1, questions: {} }, "questions: expected at least one question"],
    [
      "an empty question name",
      { state: 1, questions: { "": noul } },
      `questions[""]: expected a non-empty question name`,
    ],
    [
      "a question that is a number",
      { state: 1, questions: { a: 5 } },
      "questions.a: expected an object",
    ],
    [
      "an unknown type",
      { state: 1, questions: { a: { ...noul, type: "text" } } },
      `questions.a.type: expected "choice", "score", "noul" or "bool"`,
    ],
    [
      "no instructions",
      { state: 1, questions: { a: { type: "noul" } } },
      "questions.a.instructions: required: a non-empty string",
    ],
    [
      "empty instructions",
      { state: 1, questions: { a: { type: "noul", instructions: "" } } },
      "questions.a.instructions: expected a non-empty string",
    ],
    [
      "an unknown question field",
      { state: 1, questions: { a: { ...noul, weight: 2 } } },
      "questions.a.weight: unknown field",
    ],
    ["a choice without criteria", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i" } },
    }, "questions.pick.criteria: required: a list of option names"],
    ["a choice with one option", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: ["a"] } },
    }, "questions.pick.criteria: expected 2-255 options, got 1"],
    ["a choice with 256 options", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: choices } },
    }, "questions.pick.criteria: expected 2-255 options, got 256"],
    ["a duplicate option", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: ["a", "a"] } },
    }, `questions.pick.criteria[1]: duplicate option "a"`],
    ["a numeric option", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: ["a", 2] } },
    }, "questions.pick.criteria[1]: expected a non-empty option name"],
    ["a numeric description", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: { a: 1, b: null } } },
    }, "questions.pick.criteria.a: expected a description (a string or null)"],
    ["a score with one level", {
      state: 1,
      questions: { urgency: { type: "score", instructions: "i", criteria: ["low"] } },
    }, "questions.urgency.criteria: expected 2-10 levels, got 1"],
    ["a score with 11 levels", {
      state: 1,
      questions: { urgency: { type: "score", instructions: "i", criteria: choices.slice(0, 11) } },
    }, "questions.urgency.criteria: expected 2-10 levels, got 11"],
    ["a score with a gap in numbered levels", {
      state: 1,
      questions: {
        urgency: { type: "score", instructions: "i", criteria: { "0": "a", "2": "b" } },
      },
    }, `questions.urgency.criteria: expected levels keyed "0".."1", missing "1"`],
    ["a noul with half its criteria", {
      state: 1,
      questions: { a: { ...noul, criteria: { true: "yes" } } },
    }, "questions.a.criteria.false: expected a description"],
    ["an image that is not a data URL", {
      state: 1,
      questions: { a: noul },
      images: ["https://x/y.png"],
    }, "images[0]: expected a data: URL"],
    [
      "nine images",
      { state: 1, questions: { a: noul }, files: Array(9).fill("data:,x") },
      "files: expected at most 8 data: URLs",
    ],
    [
      "images and files",
      { state: 1, questions: { a: noul }, images: [], files: [] },
      "files: send either images or its alias files, not both",
    ],
  ];
  for (const [name, body, expected] of cases) {
    await t.step(name, () => {
      const message = messageFor(body);
      assert.ok(
        message.includes(expected),
        `${JSON.stringify(message)} lacks ${JSON.stringify(expected)}`,
      );
    });
  }
});

Deno.test("`SystemOneRequestSchema` normalises aliases to the dataset's question shape", () => {
  const parsed = SystemOneRequestSchema.parse({
    model: "m",
    state: { a: 1 },
    questions: {
      ok: { type: "bool", instructions: "Fine?", criteria: { true: "yes", false: "no" } },
      level: { type: "score", instructions: "How bad?", criteria: { "1": "high", "0": "low" } },
      pick: { type: "choice", instructions: "Which?", criteria: { b: null, a: "the a" } },
    },
    images: ["data:image/png;base64,AAAA"],
  });
  assert.deepEqual(parsed.questions, {
    ok: { type: "noul", instructions: "Fine?", criteria: { true: "yes", false: "no" } },
    level: { type: "score", instructions: "How bad?", criteria: ["low", "high"] },
    pick: { type: "choice", instructions: "Which?", criteria: { b: null, a: "the a" } },
  });
  assert.deepEqual(Object.keys(parsed.questions), ["ok", "level", "pick"]);
});

Deno.test("`SystemOneRequestSchema` accepts a string state and a state of any JSON type", () => {
  for (const state of ["text", 0, false, [1, 2], { nested: { x: [] } }]) {
    assert.deepEqual(SystemOneRequestSchema.parse({ state, questions: { a: noul } }).state, state);
  }
});

Deno.test("`formatIssues()` lists at most three issues and counts the rest", () => {
  const message = messageFor({
    state: null,
    questions: {
      a: { type: "noul" },
      b: { type: "noul" },
      c: { type: "noul" },
    },
  });
  assert.match(message, /; .*; .* \(and 1 more\)$/);
});
