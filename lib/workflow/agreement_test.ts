import assert from "node:assert/strict";
import { type AgreementInput, answerAgreement } from "./agreement.ts";

function d(c: string, question: string, answer: string | null): AgreementInput {
  return {
    case: c,
    workflow: "w",
    question,
    answer,
    error: answer === null ? { kind: "malformed", message: "x" } : null,
  };
}

Deno.test("`answerAgreement()` counts decisions where every engine gives the same answer", () => {
  const a = [d("1", "q", "yes"), d("1", "r", "a"), d("2", "q", "no"), d("2", "r", "b")];
  const b = [d("1", "q", "yes"), d("1", "r", "b"), d("2", "q", "no"), d("2", "r", null)];
  const result = answerAgreement([{ name: "a", records: a }, { name: "b", records: b }], {
    resamples: 200,
  });
  // Compared: 1/q agree, 1/r differ, 2/q agree; 2/r left out (b has an error).
  assert.deepEqual(result.overall, { key: "all", n: 3, agree: 2, rate: 2 / 3 });
  assert.equal(result.excluded, 1);
  assert.deepEqual(result.byQuestion, [
    { key: "w/q", n: 2, agree: 2, rate: 1 },
    { key: "w/r", n: 1, agree: 0, rate: 0 },
  ]);
  assert.deepEqual(result.pairs, []);
  const [lo, hi] = result.interval ?? [NaN, NaN];
  assert.ok(lo >= 0.5 && hi <= 1 && lo <= 2 / 3 && 2 / 3 <= hi, `${lo} ${hi}`);
});

Deno.test("`answerAgreement()` lists every pair when there are more than two engines", () => {
  const e = (name: string, answers: string[]) => ({
    name,
    records: answers.map((x, i) => d(String(i), "q", x)),
  });
  const result = answerAgreement([e("a", ["x", "y"]), e("b", ["x", "x"]), e("c", ["y", "x"])]);
  assert.equal(result.overall.agree, 0);
  assert.deepEqual(result.pairs.map((p) => [p.key, p.agree]), [
    ["a ↔ b", 1],
    ["a ↔ c", 0],
    ["b ↔ c", 1],
  ]);
});

Deno.test("`answerAgreement()` refuses a single engine", () => {
  assert.throws(() => answerAgreement([{ name: "a", records: [] }]), /at least two engines, got 1/);
});
