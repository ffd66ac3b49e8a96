import assert from "node:assert/strict";
import { decision, META, probe } from "./_fixtures.ts";
import { probeLine, sessionSummary } from "./plain.ts";
import { addProbe, addScrape, createLiveState } from "./state.ts";

Deno.test("`probeLine()` prints the case, its matches and the rolling and session figures", () => {
  let state = addProbe(createLiveState(META, 0), probe("cs_1", { correct: true }), 1);
  state = addScrape(state, { at: 0, values: { "llamacpp:n_decode_total": 1 } });
  state = addScrape(state, { at: 2000, values: { "llamacpp:n_decode_total": 5 } });
  assert.equal(
    probeLine(state),
    "#1 cs_1 | 5/5 match gold · 10 ms · 500 input tokens | last 5: accuracy 100.0% ECE 0.200 Brier 0.100 | session 100.0% of 5 | server 2.00 req/s",
  );
});

Deno.test("`probeLine()` names a failed probe, a confident mistake and an unreachable model", async (t) => {
  await t.step("a failed probe", () => {
    const state = addProbe(createLiveState(META, 0), probe("cs_2", { error: "unavailable" }), 1);
    assert.match(probeLine(state), /^#1 cs_2 \| no answer: unavailable: failed: unavailable \|/);
    assert.match(probeLine(state), /session 0\.0% of 5, 1 failed probes/);
  });
  await t.step("a confident mistake", () => {
    const state = addProbe(createLiveState(META, 0), {
      ...probe("cs_3"),
      records: [decision({ question: "needs_human", correct: false, confidence: 0.96 })],
    }, 1);
    assert.match(
      probeLine(state),
      /confident mistake: needs_human answered false at 96\.0%, gold true$/,
    );
  });
  await t.step("three probes without an answer", () => {
    let state = createLiveState(META, 0);
    for (let i = 0; i < 3; i++) state = addProbe(state, probe(`f${i}`, { error: "network" }), i);
    assert.match(probeLine(state), /model unreachable: 3 probes in a row got no answer$/);
  });
  await t.step("nothing before the first probe", () => {
    assert.equal(probeLine(createLiveState(META, 0)), "");
  });
});

Deno.test("`sessionSummary()` sums up the session and credits the dataset", () => {
  let state = createLiveState(META, 0);
  state = addProbe(state, probe("a", { correct: true }), 1);
  state = addProbe(state, probe("b", { correct: false, confidence: 0.95 }), 2);
  state = addProbe(state, probe("c", { error: "network" }), 3);
  // ECE: bin 0.8 holds 5 right at 0.8 (|5 − 4| = 1), bin 0.9 holds 5 wrong at 0.95 (4.75): 5.75 / 10.
  assert.equal(
    sessionSummary(state),
    "decibench live: 3 probes · session accuracy 33.3% of 15 decisions · last 15: accuracy 33.3% ECE 0.575 · 5 confident mistakes · 1 failed probes · Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)",
  );
});
