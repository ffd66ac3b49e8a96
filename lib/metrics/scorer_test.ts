import assert from "node:assert/strict";
import { loadDataset } from "../dataset/load.ts";
import { optionsOf } from "../dataset/questions.ts";
import { seededRandom } from "./rng.ts";
import { type GoldDistribution, scoreDecision } from "./score.ts";
import { questionScorer } from "./scorer.ts";

function sameScore(options: string[], predicted: number[], gold: GoldDistribution): void {
  const asObject = Object.fromEntries(options.map((o, i) => [o, predicted[i] ?? 0]));
  const expected = scoreDecision(options, asObject, gold);
  const actual = questionScorer(options)(predicted, gold);
  assert.equal(actual.answer, expected.answer);
  assert.equal(actual.correct, expected.correct);
  // Bit for bit: the records written from these numbers must not change.
  assert.ok(Object.is(actual.confidence, expected.confidence), `confidence ${options}`);
  assert.ok(Object.is(actual.kl, expected.kl), `kl ${actual.kl} vs ${expected.kl}`);
  assert.ok(Object.is(actual.brier, expected.brier), `brier ${actual.brier} vs ${expected.brier}`);
}

Deno.test("`questionScorer()` equals `scoreDecision()` bit for bit on every test-split question", async () => {
  const { cases } = await loadDataset();
  const random = seededRandom(7);
  for (const item of cases) {
    for (const [name, question] of Object.entries(item.questions)) {
      const options = optionsOf(question);
      const gold = item.gold[name]!;
      const raw = options.map(() => random());
      const sum = raw.reduce((a, b) => a + b, 0);
      sameScore(options, raw.map((x) => x / sum), gold);
      sameScore(options, options.map(() => 1 / options.length), gold); // a tie: first wins
      sameScore(options, Object.values(gold.probabilities), gold);
    }
  }
});

Deno.test("`questionScorer()` equals `scoreDecision()` on edge cases", async (t) => {
  const cases: [string, string[], number[], GoldDistribution][] = [
    ["zero on the gold label", ["a", "b"], [1, 0], { label: "b", probabilities: { a: 0, b: 1 } }],
    ["noul 0.5 predicts true", ["true", "false"], [0.5, 0.5], {
      label: "false",
      probabilities: { false: 0.7, true: 0.3 },
    }],
    ["gold lacks an option", ["a", "b", "c"], [0.2, 0.3, 0.5], {
      label: "a",
      probabilities: { b: 0.5, a: 0.5 },
    }],
    ["gold names an option not asked", ["a", "b"], [0.4, 0.6], {
      label: "a",
      probabilities: { a: 0.5, z: 0.5 },
    }],
    ["integer-like option names", ["b", "10", "2"], [0.2, 0.3, 0.5], {
      label: "2",
      probabilities: { "10": 0.5, b: 0.5 },
    }],
    ["a missing prediction counts 0", ["a", "b"], [0.9], {
      label: "a",
      probabilities: { a: 1, b: 0 },
    }],
  ];
  for (const [name, options, predicted, gold] of cases) {
    await t.step(name, () => sameScore(options, predicted, gold));
  }
});

Deno.test("`questionScorer()` refuses what `scoreDecision()` refuses", () => {
  assert.throws(() => questionScorer([]), RangeError);
  assert.throws(
    () => questionScorer(["a"])([1], { label: "a", probabilities: { a: Number.NaN } }),
    /probability of "a" is "NaN"/,
  );
});
