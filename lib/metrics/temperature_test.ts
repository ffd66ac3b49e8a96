import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { shuffle } from "./rng.ts";
import {
  fitTemperatureToLabels,
  temper,
  type TemperatureInput,
  temperatureWhatIf,
} from "./temperature.ts";

Deno.test("`temper()` sharpens below 1 and flattens above, keeping key order", () => {
  const p = { a: 0.9, b: 0.1 };
  // T = 1/2: 0.81 / 0.82
  assertClose(temper(p, 0.5).a, 0.81 / 0.82, 1e-12);
  // T = 2: 0.9^½ / (0.9^½ + 0.1^½) = 3/4
  assertClose(temper(p, 2).a, 0.75, 1e-12);
  assert.deepEqual(Object.keys(temper({ z: 0.2, a: 0.8 }, 3)), ["z", "a"]);
  // a zero is floored at 1e-12, so it stays (nearly) zero and finite
  assert.ok(temper({ a: 1, b: 0 }, 2).b! < 1e-5);
  assert.throws(() => temper(p, 0), /temperature "0" is not positive/);
});

Deno.test("`fitTemperatureToLabels()` finds the NLL minimum (hand-computed and by its derivative)", () => {
  const p = { a: 0.9, b: 0.1 };
  // constant forecast: the best tempered p(a) is the hit rate 3/4, at T = 2
  assertClose(
    fitTemperatureToLabels(["a", "a", "a", "b"].map((gold) => ({ predicted: p, gold }))),
    2,
    1e-6,
  );
  // mixed forecasts: d NLL / dβ = Σ (E_β[ln q] − ln q_label) vanishes at β = 1/T
  const items = [
    { predicted: { a: 0.6, b: 0.3, c: 0.1 }, gold: "a" },
    { predicted: { a: 0.2, b: 0.5, c: 0.3 }, gold: "c" },
    { predicted: { a: 0.7, b: 0.2, c: 0.1 }, gold: "a" },
    { predicted: { a: 0.4, b: 0.4, c: 0.2 }, gold: "b" },
  ];
  const beta = 1 / fitTemperatureToLabels(items)!;
  let derivative = 0;
  for (const { predicted, gold } of items) {
    const tempered = temper(predicted, 1 / beta);
    for (const [k, q] of Object.entries(predicted)) derivative += tempered[k]! * Math.log(q);
    derivative -= Math.log(predicted[gold as keyof typeof predicted]);
  }
  assertClose(derivative, 0, 1e-6);
  assert.equal(fitTemperatureToLabels([]), null);
  // every fitted answer right: the NLL falls towards T = 1/20 until it is flat in float64
  const sharp = fitTemperatureToLabels([{ predicted: p, gold: "a" }])!;
  assert.ok(sharp >= 0.05 && sharp < 0.1, `T ${sharp}`);
});

Deno.test("`temperatureWhatIf()` fits on the seeded half of cases and scores the other half", () => {
  const decisions: TemperatureInput[] = [];
  for (let i = 0; i < 40; i++) {
    // overconfident: 0.9 on "a", right 3 times in 4
    decisions.push({
      case: `c${i}`,
      workflow: "w",
      question: "q",
      predicted: { a: 0.9, b: 0.1 },
      gold: i % 4 === 3 ? "b" : "a",
      error: null,
    });
    decisions.push({
      case: `c${i}`,
      workflow: "w",
      question: "r",
      predicted: null,
      gold: "a",
      error: { kind: "timeout" },
    });
  }
  const result = temperatureWhatIf(decisions, { seed: 3 });
  assert.equal(result.fitCases, 20);
  assert.equal(result.heldOutCases, 20);
  assert.deepEqual(result.questions.map((r) => r.key), ["w/q"]);
  const row = result.questions[0]!;
  const fitHalf = new Set(
    shuffle(decisions.filter((d) => !d.error).map((d) => d.case), 3).slice(0, 20),
  );
  const fit = decisions.filter((d) => !d.error && fitHalf.has(d.case));
  const held = decisions.filter((d) => !d.error && !fitHalf.has(d.case));
  assert.equal(row.fitted, 20);
  assert.equal(row.n, 20);
  const hits = fit.filter((d) => d.gold === "a").length / fit.length;
  // the fitted tempered p(a) equals the fitting half's hit rate
  assertClose(temper({ a: 0.9, b: 0.1 }, row.temperature!).a, hits, 1e-6);
  const heldHits = held.filter((d) => d.gold === "a").length / held.length;
  const nll = (pa: number) => -(heldHits * Math.log(pa) + (1 - heldHits) * Math.log(1 - pa));
  assertClose(row.nllBefore, nll(0.9), 1e-12);
  assertClose(row.nllAfter, nll(hits), 1e-6);
  // one bin before and after: ECE = |hit rate − confidence|
  assertClose(row.eceBefore, Math.abs(heldHits - 0.9), 1e-12);
  assertClose(row.eceAfter, Math.abs(heldHits - Math.max(hits, 1 - hits)), 1e-6);
  assert.deepEqual(
    [result.overall.key, result.overall.n, result.overall.nllAfter],
    ["all", 20, row.nllAfter],
  );
  // the same seed gives the same split; another seed may not
  assert.deepEqual(temperatureWhatIf(decisions, { seed: 3 }), result);
});
