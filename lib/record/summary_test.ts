import assert from "node:assert/strict";
import { breakdown, summarize } from "../metrics/mod.ts";
import type { DecisionRecord } from "./schemas.ts";

Deno.test("`summarize()`, `breakdown()` accept `DecisionRecord`s as written to decisions.jsonl, `nll` included", () => {
  const record: DecisionRecord = {
    case: "x",
    workflow: "w",
    question: "q",
    type: "noul",
    predicted: { true: 0.5, false: 0.5 },
    answer: "true",
    confidence: 0.5,
    gold: "true",
    gold_probabilities: { true: 1, false: 0 },
    correct: true,
    kl: Math.LN2,
    brier: 0.5,
    latency_ms: 12,
    attempts: 1,
    input_tokens: 30,
    calibrated: true,
    error: null,
  };
  const s = summarize([record], { resamples: 10 });
  assert.equal(s.metrics.accuracy, 1);
  assert.equal(s.metrics.nll, Math.LN2);
  assert.equal(breakdown([record], "question", { resamples: 0 })[0]?.key, "w/q");
});
