import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import type { MetricInput } from "./registry.ts";
import { scorerProfile } from "./scorer_profile.ts";

function choice(
  question: string,
  predicted: Record<string, number> | null,
  gold: string,
  goldProbabilities: Record<string, number>,
  fields: Partial<MetricInput> = {},
): MetricInput {
  const keys = Object.keys(goldProbabilities);
  let answer = keys[0]!;
  for (const k of keys) if ((predicted?.[k] ?? 0) > (predicted?.[answer] ?? 0)) answer = k;
  return {
    case: "c",
    workflow: "w",
    question,
    type: "choice",
    correct: predicted !== null && answer === gold,
    confidence: predicted ? predicted[answer]! : null,
    kl: null,
    brier: predicted ? 0.5 : null,
    predicted,
    gold,
    gold_probabilities: goldProbabilities,
    error: predicted ? null : { kind: "timeout" },
    ...fields,
  };
}

const valueOf = (rows: ReturnType<typeof scorerProfile>, metric: string, convention: string) =>
  rows.find((r) => r.metric === metric && r.convention === convention)?.value;

Deno.test("the scorer profile computes each card convention on a hand table", () => {
  const rows = scorerProfile([
    // q1: gold ties a/b at 0.5 and labels b; the prediction says a (0.7): wrong by label,
    // right by the tie-aware rule. KL = 0.5·ln(0.5/0.7) + 0.5·ln(0.5/0.3)
    choice("q1", { a: 0.7, b: 0.3 }, "b", { a: 0.5, b: 0.5 }),
    // q1: right, predicted b exactly 0 where gold is 0: no KL term
    choice("q1", { a: 1, b: 0 }, "a", { a: 1, b: 0 }),
    // q2: gold a = 1 but a predicted 0: KL = ln(1/floor)
    choice("q2", { a: 0, b: 1 }, "a", { a: 1, b: 0 }, { brier: 2 }),
    // q2: an error (miss for accuracy, left out elsewhere)
    choice("q2", null, "a", { a: 1, b: 0 }),
  ]);
  assert.equal(rows.length, 14);
  assert.deepEqual(rows.filter((r) => r.decibench).map((r) => r.metric), [
    "accuracy",
    "kl",
    "brier",
    "ece",
  ]);
  assertClose(valueOf(rows, "accuracy", "pooled, ties → dataset label"), 1 / 4, 1e-12);
  assertClose(valueOf(rows, "accuracy", "pooled, ties → any top gold answer"), 2 / 4, 1e-12);
  // q1: 1/2 and 2/2; q2: 0
  assertClose(valueOf(rows, "accuracy", "per question, ties → dataset label"), 1 / 4, 1e-12);
  assertClose(valueOf(rows, "accuracy", "per question, ties → any top gold answer"), 1 / 2, 1e-12);
  const kl1 = 0.5 * Math.log(0.5 / 0.7) + 0.5 * Math.log(0.5 / 0.3);
  assertClose(valueOf(rows, "kl", "pooled, floor 1e-12"), (kl1 + Math.log(1e12)) / 3, 1e-12);
  assertClose(valueOf(rows, "kl", "pooled, floor 1e-9"), (kl1 + Math.log(1e9)) / 3, 1e-12);
  assertClose(
    valueOf(rows, "kl", "per question, floor 1e-9"),
    (kl1 / 2 + Math.log(1e9)) / 2,
    1e-12,
  );
  assertClose(valueOf(rows, "brier", "pooled"), 3 / 3, 1e-12);
  assertClose(valueOf(rows, "brier", "per question"), (0.5 + 2) / 2, 1e-12);
  // pooled 10 bins: 0.7 wrong (bin 7), 1 right + 1 wrong (bin 9: |1 − 2|) → (0.7 + 1)/3
  assertClose(valueOf(rows, "ece", "pooled, 10 bins"), 1.7 / 3, 1e-12);
  // per question: q1 (0.7 + 0)/2, q2 1 → mean 0.675
  assertClose(valueOf(rows, "ece", "per question, 10 bins"), (0.35 + 1) / 2, 1e-12);
  // 0.7 falls in bin 10 of 15, alone either way
  assertClose(valueOf(rows, "ece", "pooled, 15 bins"), 1.7 / 3, 1e-12);
});

Deno.test("the scorer profile shows n/a, not 0, when nothing is answered", () => {
  const rows = scorerProfile([choice("q", null, "a", { a: 1, b: 0 })]);
  assert.equal(valueOf(rows, "accuracy", "pooled, ties → dataset label"), 0);
  assert.equal(valueOf(rows, "kl", "pooled, floor 1e-12"), null);
  assert.equal(valueOf(rows, "ece", "per question, 15 bins"), null);
});
