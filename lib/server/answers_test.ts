import assert from "node:assert/strict";
import type { Question } from "../dataset/schemas.ts";
import { buildAnswers, confidenceOf, estimateInputTokens, scoreConfidenceOf } from "./answers.ts";

const questions: Record<string, Question> = {
  pick: { type: "choice", instructions: "Which?", criteria: { b: "the b", a: null, c: "the c" } },
  level: { type: "score", instructions: "How bad?", criteria: ["low", "mid", "high"] },
  ok: { type: "noul", instructions: "Fine?" },
};

Deno.test("`buildAnswers()` shapes choice, score and noul answers like llama-server", () => {
  const answers = buildAnswers(questions, {
    ok: { true: 0.25, false: 0.75 },
    pick: { a: 0.5, b: 0.2, c: 0.3 },
    level: { "0": 0.2, "1": 0.2, "2": 0.6 },
  });
  assert.deepEqual(Object.keys(answers), ["pick", "level", "ok"]);
  assert.deepEqual(answers.pick, {
    type: "choice",
    choice: "a",
    probabilities: { b: 0.2, a: 0.5, c: 0.3 },
    confidence: (0.5 - 1 / 3) / (1 - 1 / 3),
  });
  assert.deepEqual(Object.keys(answers.pick!.type === "choice" ? answers.pick.probabilities : {}), [
    "b",
    "a",
    "c",
  ]);
  const { confidence, ...level } = answers.level as { confidence: number };
  assert.deepEqual(level, {
    type: "score",
    score: 0.2 * 1 + 0.6 * 2,
    probabilities: { "0": 0.2, "1": 0.2, "2": 0.6 },
    legend: { "0": "low", "1": "mid", "2": "high" },
  });
  // E|level − 2| = 0.2·2 + 0.2·1 = 0.6; a uniform 3-level answer is 2/3 from the middle.
  assert.ok(Math.abs(confidence - (1 - 0.6 / (2 / 3))) < 1e-12, `${confidence}`);
  assert.deepEqual(answers.ok, { type: "noul", noul: 0.25 });
});

Deno.test("`buildAnswers()` breaks a tie toward the option listed first", () => {
  const answers = buildAnswers(
    { pick: { type: "choice", instructions: "Which?", criteria: ["x", "y", "z"] } },
    { pick: { x: 0.2, y: 0.4, z: 0.4 } },
  );
  assert.equal(answers.pick?.type === "choice" && answers.pick.choice, "y");
});

Deno.test("`buildAnswers()` gives 0 to an option the distribution leaves out", () => {
  const answers = buildAnswers(
    { pick: { type: "choice", instructions: "Which?", criteria: ["x", "y"] } },
    { pick: { y: 1 } },
  );
  assert.deepEqual(answers.pick?.type === "choice" && answers.pick.probabilities, { x: 0, y: 1 });
});

Deno.test("`buildAnswers()` refuses a question without a distribution", () => {
  assert.throws(
    () => buildAnswers(questions, { pick: { a: 1 } }),
    /Cannot answer question "level": the predictor gave no distribution/,
  );
});

Deno.test("`confidenceOf()` is 0 at uniform and 1 at certainty", () => {
  assert.equal(confidenceOf(0.25, 4), 0);
  assert.equal(confidenceOf(1, 4), 1);
  assert.equal(confidenceOf(0.75, 2), 0.5);
});

Deno.test("`scoreConfidenceOf()` matches Typed Decisions' gold score confidence", async (t) => {
  const cases: [string, number[], number, number][] = [
    // Gold of agent_trace_observability_000000 / risk and / urgency.
    ["risk", [0.3, 0.616667, 0.076667, 0.006667], 1, 0.61],
    ["urgency", [0.533333, 0.383333, 0.076667, 0.006667], 0, 0.443333],
    ["five levels", [0.016667, 0.083333, 0.366667, 0.45, 0.083333], 3, 0.444444],
    ["a spread wider than uniform floors at 0", [0.433333, 0.166667, 0.063333, 0.336667], 0, 0],
    ["all mass on one level", [0, 0, 1], 2, 1],
  ];
  for (const [name, probabilities, top, expected] of cases) {
    await t.step(name, () => {
      assert.ok(
        Math.abs(scoreConfidenceOf(probabilities, top) - expected) < 1e-5,
        `${scoreConfidenceOf(probabilities, top)} != ${expected}`,
      );
    });
  }
  assert.ok(Math.abs(scoreConfidenceOf([0.8, 0.2], 0) - confidenceOf(0.8, 2)) < 1e-12);
});

Deno.test("`estimateInputTokens()` counts UTF-8 bytes of the state text and questions JSON", async (t) => {
  const q = { a: { type: "noul", instructions: "x" } };
  const qBytes = JSON.stringify(q).length;
  await t.step("a string state counts as its own text", () => {
    assert.equal(estimateInputTokens("abcd", q), Math.ceil((4 + qBytes) / 4));
  });
  await t.step("an object state counts as its JSON", () => {
    assert.equal(estimateInputTokens({ k: 1 }, q), Math.ceil((7 + qBytes) / 4));
  });
  await t.step("non-ASCII text counts in UTF-8 bytes", () => {
    assert.equal(estimateInputTokens("é€", q), Math.ceil((2 + 3 + qBytes) / 4));
  });
});
