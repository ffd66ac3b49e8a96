import assert from "node:assert/strict";
import type { Case, Question } from "../../dataset/mod.ts";
import { syntheticDistribution, syntheticPredictor } from "./synthetic.ts";

const questions: Record<string, Question> = {
  ok: { type: "noul", instructions: "Fine?" },
  team: { type: "choice", instructions: "Who?", criteria: ["a", "b", "c"] },
};

function item(id: string, state: unknown, ok: "true" | "false" | null): Case {
  return {
    id,
    workflow: "lane",
    state,
    questions,
    gold: ok === null ? {} : {
      ok: {
        type: "noul",
        label: ok,
        probabilities: ok === "true" ? { true: 1, false: 0 } : { true: 0, false: 1 },
        confidence: 1,
      },
    },
  };
}

Deno.test("`syntheticDistribution()` depends only on seed, case, question and settings", () => {
  const a = syntheticDistribution("c1", "ok", ["true", "false"], "true", { seed: 3 });
  assert.deepEqual(syntheticDistribution("c1", "ok", ["true", "false"], "true", { seed: 3 }), a);
  assert.notDeepEqual(syntheticDistribution("c1", "ok", ["true", "false"], "true", { seed: 4 }), a);
  assert.notDeepEqual(syntheticDistribution("c2", "ok", ["true", "false"], "true", { seed: 3 }), a);
  assert.ok(Math.abs((a.true ?? 0) + (a.false ?? 0) - 1) < 1e-12);
});

Deno.test("`syntheticDistribution()` with skill 1 is calibrated at temperature 1 and over-confident below it", () => {
  // Yes/no, gold alternating: the mean P(gold) equals accuracy at T = 1; at T = 0.5 it exceeds it.
  for (const [temperature, over] of [[1, false], [0.5, true]] as const) {
    let confidence = 0;
    let correct = 0;
    const n = 4000;
    for (let i = 0; i < n; i++) {
      const gold = i % 2 ? "true" : "false";
      const p = syntheticDistribution(`c${i}`, "ok", ["true", "false"], gold, {
        skill: 1,
        temperature,
      });
      const top = (p.true ?? 0) >= 0.5 ? "true" : "false";
      confidence += Math.max(p.true ?? 0, p.false ?? 0);
      if (top === gold) correct++;
    }
    const gap = confidence / n - correct / n;
    if (over) assert.ok(gap > 0.05, `T=${temperature}: gap ${gap}`);
    else assert.ok(Math.abs(gap) < 0.03, `T=${temperature}: gap ${gap}`);
  }
});

Deno.test("`syntheticPredictor()` favours the gold option, answers noise to an unlabelled row", async () => {
  const cases = Array.from(
    { length: 400 },
    (_, i) => item(`c${i}`, { n: i }, i < 200 ? (i % 2 ? "true" : "false") : null),
  );
  const predictor = await syntheticPredictor(cases, { skill: 4, temperature: 1, seed: 1 });
  let hits = 0;
  for (let i = 0; i < 200; i++) {
    const p = predictor.predict({ n: i }, { ok: questions.ok! }).ok!;
    if (((p.true ?? 0) >= 0.5) === (i % 2 === 1)) hits++;
  }
  assert.ok(hits > 190, `labelled hits ${hits}`);
  let trueTop = 0;
  for (let i = 200; i < 400; i++) {
    const p = predictor.predict(JSON.stringify({ n: i }), { ok: questions.ok! }).ok!;
    if ((p.true ?? 0) >= 0.5) trueTop++;
  }
  assert.ok(trueTop > 60 && trueTop < 140, `unlabelled: ${trueTop} of 200 lean yes`);
  assert.deepEqual(
    predictor.predict({ n: 3 }, questions).ok,
    syntheticDistribution("c3", "ok", ["true", "false"], "true", { skill: 4, seed: 1 }),
  );
});

Deno.test("`syntheticPredictor()` answers a state shared by cases as the first of them", async () => {
  const predictor = await syntheticPredictor([
    item("first", { s: 1 }, "true"),
    item("second", { s: 1 }, "false"),
  ], { skill: 2 });
  assert.deepEqual(
    predictor.predict({ s: 1 }, { ok: questions.ok! }).ok,
    syntheticDistribution("first", "ok", ["true", "false"], "true", { skill: 2 }),
  );
});

Deno.test("`syntheticPredictor()` refuses an unknown state, an unknown question and bad settings", async () => {
  const predictor = await syntheticPredictor([item("c1", { s: 1 }, "true")]);
  assert.throws(() => predictor.predict({ s: 2 }, questions), {
    name: "RangeError",
    message: /matches no case/,
  });
  assert.throws(
    () => predictor.predict({ s: 1 }, { other: { type: "noul", instructions: "x" } }),
    { name: "RangeError", message: /has no question "other"/ },
  );
  await assert.rejects(syntheticPredictor([], { temperature: 0 }), {
    name: "RangeError",
    message: /temperature "0"/,
  });
  await assert.rejects(syntheticPredictor([], { skill: NaN }), {
    name: "RangeError",
    message: /skill "NaN"/,
  });
});
