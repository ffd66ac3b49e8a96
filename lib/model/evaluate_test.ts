import assert from "node:assert/strict";
import type { Case, Question } from "../dataset/schemas.ts";
import { figuresBy, figuresOf, scoreCases } from "./evaluate.ts";

const pick: Question = { type: "choice", instructions: "Which?", criteria: ["x", "y"] };
const ok: Question = { type: "noul", instructions: "Fine?" };

const cases: Case[] = [{
  id: "c1",
  workflow: "w",
  state: {},
  questions: { pick, ok },
  gold: {
    // tied gold: the dataset picked "y"
    pick: { type: "choice", label: "y", probabilities: { x: 0.5, y: 0.5 }, confidence: 0 },
    ok: {
      type: "noul",
      label: "false",
      probabilities: { false: 0.75, true: 0.25 },
      confidence: 0.5,
    },
  },
}];

const predictor = {
  predict: () => ({ pick: { x: 0.8, y: 0.2 }, ok: { true: 0.25, false: 0.75 } }),
};

Deno.test("`scoreCases()` scores labels strictly and tied gold answers leniently", () => {
  const [pickScore, okScore] = scoreCases(predictor, cases);
  assert.equal(pickScore!.correct, false);
  assert.equal(pickScore!.correctTieAware, true);
  assert.ok(
    Math.abs(pickScore!.kl - (0.5 * Math.log(0.5 / 0.8) + 0.5 * Math.log(0.5 / 0.2))) < 1e-12,
  );
  assert.ok(Math.abs(pickScore!.brier - (0.09 + 0.09)) < 1e-12);
  assert.equal(okScore!.correct, true);
  assert.equal(okScore!.kl, 0);
});

Deno.test("`figuresOf()` and `figuresBy()` average per group", () => {
  const scored = scoreCases(predictor, cases);
  const all = figuresOf(scored);
  assert.equal(all.n, 2);
  assert.equal(all.accuracy, 0.5);
  assert.equal(all.accuracyTieAware, 1);
  const byType = figuresBy(scored, "type");
  assert.deepEqual([...byType.keys()], ["choice", "noul"]);
  assert.equal(byType.get("noul")!.accuracy, 1);
  assert.deepEqual([...figuresBy(scored, "question").keys()], ["w/pick", "w/ok"]);
  assert.equal(figuresOf([]).n, 0);
});

Deno.test("`scoreCases()` refuses a prediction missing a question", () => {
  assert.throws(() => scoreCases({ predict: () => ({ pick: { x: 1, y: 0 } }) }, cases), /"ok"/);
});
