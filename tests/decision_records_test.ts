import assert from "node:assert/strict";
import type { Case } from "../lib/dataset/mod.ts";
import { decisionRecords } from "../lib/record/mod.ts";

const item: Case = {
  id: "c1",
  workflow: "triage",
  state: { ticket: "refund please" },
  questions: {
    route: { type: "choice", instructions: "Where to?", criteria: ["billing", "tech", "other"] },
    refund: { type: "noul", instructions: "A refund request?" },
  },
  gold: {
    // Listed out of option order, as a hand-made question set may give them.
    route: {
      type: "choice",
      label: "billing",
      probabilities: { other: 0.1, billing: 0.7, tech: 0.2 },
      confidence: 0.7,
    },
    refund: {
      type: "noul",
      label: "true",
      probabilities: { true: 0.9, false: 0.1 },
      confidence: 0.9,
    },
  },
};

Deno.test("`decisionRecords()` writes predicted and gold distributions in option order, whatever order they came in, missing options at 0", () => {
  const records = decisionRecords(item, {
    reply: {
      answers: {
        // An engine's reply out of option order and without "other".
        route: {
          type: "choice",
          probabilities: { tech: 0.25, billing: 0.75 },
          probability: 0.75,
          calibrated: true,
        },
        refund: {
          type: "noul",
          probabilities: { true: 0.8, false: 0.2 },
          probability: 0.8,
          calibrated: true,
        },
      },
    },
    error: null,
    attempts: 1,
    latencyMs: 12.3456,
  });
  const [route, refund] = records;
  assert.equal(JSON.stringify(route?.predicted), '{"billing":0.75,"tech":0.25,"other":0}');
  assert.equal(JSON.stringify(route?.gold_probabilities), '{"billing":0.7,"tech":0.2,"other":0.1}');
  assert.equal(route?.answer, "billing");
  assert.equal(route?.correct, true);
  assert.equal(JSON.stringify(refund?.predicted), '{"true":0.8,"false":0.2}');
  assert.equal(JSON.stringify(refund?.gold_probabilities), '{"true":0.9,"false":0.1}');
  assert.equal(refund?.latency_ms, 12.346);
});
