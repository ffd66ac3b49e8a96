import assert from "node:assert/strict";
import type { Case, Question } from "../dataset/schemas.ts";
import { fitPrior } from "./prior.ts";

const kind: Question = {
  type: "choice",
  instructions: "Which?",
  criteria: { b: "B", a: "A", c: "C" },
};
const ok: Question = { type: "noul", instructions: "Fine?" };

function caseOf(id: string, kindGold: Record<string, number>, okTrue: number): Case {
  return {
    id,
    workflow: "w",
    state: { id },
    questions: { kind, ok },
    gold: {
      kind: { type: "choice", label: "b", probabilities: kindGold, confidence: 0 },
      ok: {
        type: "noul",
        label: "true",
        probabilities: { false: 1 - okTrue, true: okTrue },
        confidence: 0,
      },
    },
  };
}

Deno.test("`fitPrior()` answers the mean gold distribution in option order", () => {
  const prior = fitPrior([
    caseOf("1", { a: 0.5, b: 0.5, c: 0 }, 1),
    caseOf("2", { a: 0.1, b: 0.6, c: 0.3 }, 0.5),
  ]);
  const answer = prior.predict({ anything: 1 }, { kind, ok });
  assert.deepEqual(Object.keys(answer.kind!), ["b", "a", "c"]);
  assert.deepEqual(Object.keys(answer.ok!), ["true", "false"]);
  assert.ok(Math.abs(answer.kind!.b! - 0.55) < 1e-12);
  assert.ok(Math.abs(answer.kind!.a! - 0.3) < 1e-12);
  assert.ok(Math.abs(answer.kind!.c! - 0.15) < 1e-12);
  assert.equal(answer.ok!.true, 0.75);
});

Deno.test("`fitPrior()` refuses no cases and a workflow whose cases differ", () => {
  assert.throws(() => fitPrior([]), RangeError);
  const odd = { ...caseOf("2", { a: 1, b: 0, c: 0 }, 1), questions: { kind } };
  assert.throws(
    () => fitPrior([caseOf("1", { a: 1, b: 0, c: 0 }, 1), odd]),
    /asks different questions/,
  );
});

Deno.test("`fitPrior()` predictions throw RangeError for unknown questions", () => {
  const prior = fitPrior([caseOf("1", { a: 1, b: 0, c: 0 }, 1)]);
  assert.throws(() => prior.predict({}, { other: ok }), RangeError);
});
