import assert from "node:assert/strict";
import { findGoldInconsistency, questionSchemas } from "./_consistency.ts";
import type { Case } from "./schemas.ts";

function makeCase(edit: (c: Case) => void = () => {}): Case {
  const c: Case = {
    id: "c1",
    workflow: "customer_service",
    state: {},
    questions: {
      pick: { type: "choice", instructions: "Pick", criteria: { a: "A", b: "B", c: "C", d: "D" } },
      yes: { type: "noul", instructions: "Yes?" },
      level: { type: "score", instructions: "Level", criteria: ["0", "1", "2", "3"] },
    },
    gold: {
      // p_max 0.4, K 4: confidence (0.4 − 0.25) / 0.75 = 0.2
      pick: {
        type: "choice",
        label: "b",
        probabilities: { a: 0.3, b: 0.4, c: 0.2, d: 0.1 },
        confidence: 0.2,
      },
      yes: {
        type: "noul",
        label: "true",
        probabilities: { false: 0.25, true: 0.75 },
        confidence: 0.5,
        noul: 0.75,
      },
      // expected level 0·0.1 + 1·0.2 + 2·0.3 + 3·0.4 = 2.0
      level: {
        type: "score",
        label: "3",
        probabilities: { "0": 0.1, "1": 0.2, "2": 0.3, "3": 0.4 },
        confidence: 0.9,
        score: 2,
      },
    },
  };
  edit(c);
  return c;
}

Deno.test("`findGoldInconsistency()` accepts consistent gold", () => {
  assert.equal(findGoldInconsistency([makeCase()]), undefined);
});

Deno.test("`findGoldInconsistency()` names each kind of inconsistency", async (t) => {
  const cases: [string, (c: Case) => void, RegExp][] = [
    [
      "probabilities that do not sum to 1",
      (c) => (c.gold.pick!.probabilities.d = 0.2),
      /gold of 'pick' has probabilities summing to 1\.1/,
    ],
    [
      "a label that is not a most likely answer",
      (c) => (c.gold.pick!.label = "a"),
      /gold of 'pick' has label 'a', which is not a most likely answer/,
    ],
    [
      "noul other than P(true)",
      (c) => (c.gold.yes!.noul = 0.7),
      /gold of 'yes' has noul 0\.7 but P\(true\) 0\.75/,
    ],
    [
      "a score other than the expected level",
      (c) => (c.gold.level!.score = 2.1),
      /has score 2\.1 but the expected level is 2/,
    ],
    [
      "a choice confidence off the formula",
      (c) => (c.gold.pick!.confidence = 0.25),
      /gold of 'pick' has confidence 0\.25 but \(p_max − 1\/K\)\/\(1 − 1\/K\) is 0\.2/,
    ],
  ];
  for (const [name, edit, pattern] of cases) {
    await t.step(name, () => {
      const problem = findGoldInconsistency([makeCase(edit)]);
      assert.match(problem ?? "", /^case 'c1' /);
      assert.match(problem ?? "", pattern);
    });
  }
});

Deno.test("`questionSchemas()` finds a case whose questions differ from its workflow's", () => {
  const same = questionSchemas([makeCase(), makeCase((c) => (c.id = "c2"))]);
  assert.ok("schemas" in same);
  assert.equal(same.schemas.size, 1);
  const different = questionSchemas([
    makeCase(),
    makeCase((c) => {
      c.id = "c2";
      c.questions.yes = { type: "noul", instructions: "Really?" };
    }),
  ]);
  assert.deepEqual(different, {
    problem: "case 'c2' has questions that differ from its workflow's other cases",
  });
});
