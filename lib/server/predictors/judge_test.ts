import assert from "node:assert/strict";
import type { Question } from "../../dataset/schemas.ts";
import { judgePredictor } from "./judge.ts";

const refund: Record<string, Question> = {
  refund: {
    type: "choice",
    instructions: "Did the assistant say a refund was issued?",
    criteria: {
      claims_refund: "The assistant says a refund was issued.",
      no_claim: "The assistant does not say a refund was issued.",
      unclear: "Cannot tell.",
    },
  },
};

function top(dist: Record<string, number> | undefined): string {
  const entries = Object.entries(dist ?? {});
  entries.sort((a, b) => b[1] - a[1]);
  return entries[0]?.[0] ?? "";
}

Deno.test("judgePredictor() follows lexical cues and negation polarity", async (t) => {
  const judge = judgePredictor();
  const table: [string, string[], string][] = [
    ["a plain claim", ["I have issued your refund."], "claims_refund"],
    ["a negated sentence", ["I can't issue a refund for this order."], "no_claim"],
    ["no cue at all: the negated option's absence bonus", ["Thanks for writing in."], "no_claim"],
  ];
  for (const [name, messages, want] of table) {
    await t.step(name, () => {
      const answer = judge.predict({ assistant_messages: messages }, refund).refund;
      assert.equal(top(answer), want);
      const sum = Object.values(answer ?? {}).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-12);
    });
  }
});

Deno.test("judgePredictor() ties equal evidence, so an audit abstains", () => {
  const answer = judgePredictor().predict({ assistant_messages: ["Refund issued."] }, {
    q: {
      type: "choice",
      instructions: "Which?",
      criteria: { first: "refund issued", second: "refund issued", unclear: "?" },
    },
  }).q;
  assert.equal(answer?.first, answer?.second);
});

Deno.test("judgePredictor() answers noul and score questions", () => {
  const out = judgePredictor().predict("The invoice was paid.", {
    paid: { type: "noul", instructions: "Was the invoice paid?" },
    level: { type: "score", instructions: "How bad?", criteria: ["low", "mid", "high"] },
  });
  assert.ok((out.paid?.true ?? 0) > 0.5);
  assert.deepEqual(out.level, { "0": 1 / 3, "1": 1 / 3, "2": 1 / 3 });
});
