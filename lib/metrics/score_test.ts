import assert from "node:assert/strict";
import { optionsOf } from "../dataset/questions.ts";
import { assertClose } from "./_assert_close.ts";
import { argmax, brierScore, klDivergence, normalizeNoul, scoreDecision } from "./score.ts";

Deno.test("`scoreDecision()` scores a choice against hand-computed values", () => {
  // KL = 0.5·ln(0.5/0.5) + 0.5·ln(0.5/0.3) = 0.5·ln(5/3) = 0.25541281188299536
  // Brier = (0.2−0)² + (0.5−0.5)² + (0.3−0.5)² = 0.04 + 0 + 0.04 = 0.08
  const s = scoreDecision(["a", "b", "c"], { a: 0.2, b: 0.5, c: 0.3 }, {
    label: "b",
    probabilities: { a: 0, b: 0.5, c: 0.5 },
  });
  assert.equal(s.answer, "b");
  assert.equal(s.confidence, 0.5);
  assert.equal(s.correct, true);
  assertClose(s.kl, 0.25541281188299536, 1e-12);
  assertClose(s.brier, 0.08, 1e-12);
});

Deno.test("`scoreDecision()` breaks a tie with the option listed first", async (t) => {
  const gold = { label: "b", probabilities: { a: 0.5, b: 0.5, c: 0 } };
  const predicted = { a: 0.4, b: 0.4, c: 0.2 };
  await t.step("a listed first wins", () => {
    const s = scoreDecision(["a", "b", "c"], predicted, gold);
    assert.equal(s.answer, "a");
    assert.equal(s.correct, false);
  });
  await t.step("b listed first wins, whatever the key order of the prediction", () => {
    const s = scoreDecision(["b", "a", "c"], predicted, gold);
    assert.equal(s.answer, "b");
    assert.equal(s.correct, true);
  });
  await t.step("noul 0.5 predicts true", () => {
    const s = scoreDecision(
      optionsOf({ type: "noul", instructions: "Is it?" }),
      normalizeNoul(0.5),
      { label: "true", probabilities: { false: 0.6, true: 0.4 } },
    );
    assert.equal(s.answer, "true");
    assert.equal(s.confidence, 0.5);
    assert.equal(s.correct, true);
  });
});

Deno.test("`scoreDecision()` counts a missing predicted option as 0, floored at 1e-12 for KL", () => {
  // KL = 0.5·ln(0.5/1) + 0.5·ln(0.5/1e-12) = ln 0.5 + 6·ln 10 = 13.12236337740433
  // Brier = (1 − 0.5)² + (0 − 0.5)² = 0.5
  const s = scoreDecision(["a", "b"], { a: 1 }, { label: "b", probabilities: { a: 0.5, b: 0.5 } });
  assert.equal(s.answer, "a");
  assert.equal(s.confidence, 1);
  assert.equal(s.correct, false);
  assertClose(s.kl, 13.12236337740433, 1e-9);
  assertClose(s.brier, 0.5, 1e-12);
});

Deno.test("`scoreDecision()` reaches the worst Brier score 2 on opposite certainties", () => {
  // KL = 1·ln(1/1e-12) = 12·ln 10 = 27.631021115928547
  const s = scoreDecision(["a", "b"], { a: 0, b: 1 }, {
    label: "a",
    probabilities: { a: 1, b: 0 },
  });
  assert.equal(s.brier, 2);
  assertClose(s.kl, 27.631021115928547, 1e-9);
});

Deno.test("`scoreDecision()` uses score options 0..n-1 from `optionsOf()`", () => {
  const options = optionsOf({
    type: "score",
    instructions: "How bad?",
    criteria: ["lo", "mid", "hi"],
  });
  assert.deepEqual(options, ["0", "1", "2"]);
  // KL = 1·ln(1/0.25) = ln 4; Brier = (0.25 − 1)² + (0.75 − 0)² + 0 = 0.5625 + 0.5625 = 1.125
  const s = scoreDecision(options, { "0": 0.25, "1": 0.75, "2": 0 }, {
    label: "0",
    probabilities: { "0": 1, "1": 0, "2": 0 },
  });
  assert.equal(s.answer, "1");
  assertClose(s.kl, Math.log(4), 1e-12);
  assertClose(s.brier, 1.125, 1e-12);
});

Deno.test("`scoreDecision()` returns null scores and a miss when the request failed", () => {
  const s = scoreDecision(["a", "b"], null, { label: "a", probabilities: { a: 1, b: 0 } });
  assert.deepEqual(s, { answer: null, confidence: null, correct: false, kl: null, brier: null });
});

Deno.test("`scoreDecision()` scores an exact prediction with KL 0 and Brier 0", () => {
  const probabilities = { x: 0.583333, y: 0.29, z: 0.126667 };
  const s = scoreDecision(["x", "y", "z"], probabilities, { label: "x", probabilities });
  assert.equal(s.kl, 0);
  assert.equal(s.brier, 0);
  assert.equal(s.correct, true);
});

Deno.test("`scoreDecision()` rejects empty options and non-finite probabilities", async (t) => {
  const gold = { label: "a", probabilities: { a: 1 } };
  await t.step("no options", () => {
    assert.throws(() => scoreDecision([], { a: 1 }, gold), RangeError);
  });
  await t.step("NaN probability", () => {
    assert.throws(
      () => scoreDecision(["a", "b"], { a: Number.NaN, b: 1 }, gold),
      /probability of "a" is "NaN"/,
    );
  });
});

Deno.test("`brierScore()` sums over the union of answers, extra predicted keys included", () => {
  // (0.5−1)² + (0.3−0)² + (0.2−0)² = 0.25 + 0.09 + 0.04 = 0.38
  assertClose(brierScore({ a: 1, b: 0 }, { a: 0.5, b: 0.3, x: 0.2 }), 0.38, 1e-12);
});

Deno.test("`klDivergence()` skips gold answers with probability 0", () => {
  // only a counts: 1·ln(1/0.5) = ln 2; b's 0 gold adds nothing even though p(b) = 0.5
  assertClose(klDivergence({ a: 1, b: 0 }, { a: 0.5, b: 0.5 }), Math.LN2, 1e-12);
});

Deno.test("`argmax()` picks the highest probability", () => {
  assert.deepEqual(argmax(["a", "b", "c"], { a: 0.1, b: 0.2, c: 0.7 }), {
    answer: "c",
    confidence: 0.7,
  });
});

Deno.test("`normalizeNoul()` maps p to {true: p, false: 1 − p} and rejects values outside [0, 1]", () => {
  assert.deepEqual(normalizeNoul(0.25), { true: 0.25, false: 0.75 });
  assert.deepEqual(Object.keys(normalizeNoul(0.25)), ["true", "false"]);
  assert.throws(() => normalizeNoul(1.5), RangeError);
  assert.throws(() => normalizeNoul(Number.NaN), RangeError);
});
