import assert from "node:assert/strict";
import { decision, META, probe } from "./_fixtures.ts";
import {
  activeBanner,
  addFailedScrape,
  addProbe,
  addScrape,
  BANNER_MS,
  createLiveState,
  isUnreachable,
  latencyFigures,
  type LiveState,
  qualityFigures,
  resetSession,
  TREND_POINTS,
  WINDOW_DECISIONS,
  windowHistogram,
} from "./state.ts";

function run(probes: ReturnType<typeof probe>[], start = createLiveState(META, 0)): LiveState {
  return probes.reduce((state, p, i) => addProbe(state, p, 1000 * (i + 1)), start);
}

Deno.test("`addProbe()` keeps a rolling window of the last 100 decisions", () => {
  const state = run(Array.from({ length: 25 }, (_, i) => probe(`c${i + 1}`)));
  assert.equal(WINDOW_DECISIONS, 100);
  assert.equal(state.window.length, 100);
  assert.equal(state.window[0]?.case, "c6");
  assert.equal(state.window.at(-1)?.case, "c25");
  assert.equal(state.decisions, 125);
  assert.equal(state.probes, 25);
});

Deno.test("`qualityFigures()` computes rolling figures over the window and session accuracy over everything", () => {
  const wrong = Array.from({ length: 20 }, (_, i) => probe(`w${i}`, { correct: false }));
  const right = Array.from({ length: 20 }, (_, i) => probe(`r${i}`, { correct: true }));
  const q = qualityFigures(run([...wrong, ...right]));
  assert.equal(q.accuracy, 1);
  assert.equal(q.sessionAccuracy, 0.5);
  assert.equal(q.windowDecisions, 100);
  // Every window decision is right at confidence 0.8: ECE = |1 − 0.8|.
  assert.ok(Math.abs((q.ece ?? NaN) - 0.2) < 1e-12);
  assert.ok(Math.abs((q.meanConfidence ?? NaN) - 0.8) < 1e-12);
  assert.ok(Math.abs((q.brier ?? NaN) - 0.1) < 1e-12);
});

Deno.test("`qualityFigures()` counts errors as misses for accuracy and leaves them out of ECE", () => {
  const state = run([
    probe("a", { correct: true, confidence: 0.8 }),
    probe("b", { error: "unavailable" }),
  ]);
  const q = qualityFigures(state);
  assert.equal(q.accuracy, 0.5);
  assert.equal(q.windowErrors, 5);
  assert.ok(Math.abs((q.ece ?? NaN) - 0.2) < 1e-12);
  assert.equal(state.errors, 5);
  assert.equal(state.failedProbes, 1);
  assert.equal(state.lastError?.kind, "unavailable");
});

Deno.test("`addProbe()` adds one trend point per probe and keeps at most TREND_POINTS", () => {
  const two = run([probe("a", { correct: false }), probe("b", { correct: true })]);
  assert.deepEqual(two.trend.accuracy, [0, 0.5]);
  const many = run(Array.from({ length: TREND_POINTS + 10 }, (_, i) => probe(`c${i}`)));
  assert.equal(many.trend.accuracy.length, TREND_POINTS);
  assert.equal(many.trend.ece.length, TREND_POINTS);
});

Deno.test("`addProbe()` records a null ECE trend point while nothing in the window is answered", () => {
  const state = run([probe("a", { error: "network" })]);
  assert.deepEqual(state.trend.ece, [null]);
  assert.deepEqual(state.trend.accuracy, [0]);
});

Deno.test("`addProbe()` tallies session accuracy by question type", () => {
  let state = createLiveState(META, 0);
  state = addProbe(state, {
    ...probe("a"),
    records: [
      decision({ type: "noul", correct: true }),
      decision({ type: "noul", correct: false }),
      decision({ type: "choice", correct: true }),
      decision({ type: "score", correct: false }),
      decision({ type: "score", correct: false }),
    ],
  }, 1);
  assert.deepEqual(state.byType, {
    noul: { decisions: 2, correct: 1 },
    choice: { decisions: 1, correct: 1 },
    score: { decisions: 2, correct: 0 },
  });
});

Deno.test("a confident mistake raises a banner naming the most confident one, which expires", async (t) => {
  const start = createLiveState(META, 0);
  const state = addProbe(start, {
    ...probe("case-7"),
    records: [
      decision({ caseId: "case-7", question: "urgency", correct: false, confidence: 0.93 }),
      decision({ caseId: "case-7", question: "needs_human", correct: false, confidence: 0.97 }),
      decision({ caseId: "case-7", question: "churn", correct: false, confidence: 0.89 }),
      decision({ caseId: "case-7", question: "category", correct: true, confidence: 0.99 }),
    ],
  }, 10_000);
  assert.equal(state.confidentMistakes, 2);
  await t.step("the banner names the 97% mistake and counts both", () => {
    const banner = activeBanner(state, 10_000);
    assert.equal(banner?.question, "needs_human");
    assert.equal(banner?.confidence, 0.97);
    assert.equal(banner?.inCase, 2);
  });
  await t.step("it is still up just before BANNER_MS has passed", () => {
    assert.notEqual(activeBanner(state, 10_000 + BANNER_MS - 1), null);
  });
  await t.step("it is gone once BANNER_MS has passed", () => {
    assert.equal(activeBanner(state, 10_000 + BANNER_MS), null);
  });
  await t.step("a later probe without a mistake keeps the banner's expiry", () => {
    const later = addProbe(state, probe("c2"), 12_000);
    assert.equal(later.banner?.until, 10_000 + BANNER_MS);
  });
  await t.step("a later mistake replaces it", () => {
    const later = addProbe(state, probe("c3", { correct: false, confidence: 0.95 }), 12_000);
    assert.equal(later.banner?.caseId, "c3");
    assert.equal(later.banner?.until, 12_000 + BANNER_MS);
  });
});

Deno.test("a wrong answer below 90% or an error is not a confident mistake", () => {
  const state = run([
    probe("a", { correct: false, confidence: 0.899 }),
    probe("b", { error: "malformed" }),
  ]);
  assert.equal(state.confidentMistakes, 0);
  assert.equal(state.banner, null);
});

Deno.test("`isUnreachable()` follows probes in a row that got no answer", async (t) => {
  const failing = (n: number, kind: "network" | "timeout" | "unavailable" | "malformed") =>
    Array.from({ length: n }, (_, i) => probe(`f${i}`, { error: kind }));
  await t.step("two network failures are not enough", () => {
    assert.equal(isUnreachable(run(failing(2, "network"))), false);
  });
  await t.step("three failures in a row make it unreachable", () => {
    assert.equal(isUnreachable(run(failing(3, "network"))), true);
    assert.equal(
      isUnreachable(run([...failing(2, "timeout"), ...failing(1, "unavailable")])),
      true,
    );
  });
  await t.step("an answer ends the streak", () => {
    const state = run([...failing(3, "network"), probe("ok")]);
    assert.equal(isUnreachable(state), false);
    assert.equal(state.noAnswerStreak, 0);
  });
  await t.step("malformed answers show the server is there", () => {
    assert.equal(isUnreachable(run(failing(5, "malformed"))), false);
  });
});

Deno.test("`resetSession()` clears the session and keeps the header facts and server load", () => {
  let state = run(
    Array.from({ length: 5 }, (_, i) => probe(`c${i}`, { correct: false, confidence: 0.95 })),
  );
  state = addScrape(state, { at: 1, values: { "llamacpp:n_decode_total": 9 } });
  const reset = resetSession(state, 50_000);
  assert.equal(reset.probes, 0);
  assert.equal(reset.decisions, 0);
  assert.equal(reset.window.length, 0);
  assert.deepEqual(reset.trend, { accuracy: [], ece: [] });
  assert.equal(reset.confidentMistakes, 0);
  assert.equal(reset.banner, null);
  assert.equal(reset.inputTokens, 0);
  assert.equal(reset.startedAt, 50_000);
  assert.equal(reset.meta, state.meta);
  assert.equal(reset.server.last?.values["llamacpp:n_decode_total"], 9);
  assert.equal(qualityFigures(reset).sessionAccuracy, null);
});

Deno.test("`windowHistogram()` bins answered decisions of the window by top probability", () => {
  const state = addProbe(createLiveState(META, 0), {
    ...probe("a"),
    records: [
      decision({ confidence: 1, correct: true }),
      decision({ confidence: 0.95, correct: false }),
      decision({ confidence: 0.5, correct: true }),
      decision({ confidence: 0.25, correct: true }),
      decision({ error: "malformed" }),
    ],
  }, 1);
  const bins = windowHistogram(state);
  assert.equal(bins.length, 10);
  assert.deepEqual(bins.map((b) => b.count), [0, 0, 1, 0, 0, 1, 0, 0, 0, 2]);
  assert.equal(bins[9]?.correct, 1);
  assert.equal(bins[9]?.lower, 0.9);
});

Deno.test("`latencyFigures()` covers answered probes only", () => {
  const state = run([
    probe("a", {}, { latencyMs: 10 }),
    probe("b", {}, { latencyMs: 20 }),
    probe("c", {}, { latencyMs: 30 }),
    probe("d", { error: "unavailable" }, { latencyMs: 9999 }),
  ]);
  assert.deepEqual(latencyFigures(state), { p50: 20, p95: 29 });
  assert.deepEqual(latencyFigures(createLiveState(META, 0)), { p50: null, p95: null });
});

Deno.test("input tokens add up over the session's probes", () => {
  const state = run([probe("a", {}, { inputTokens: 700 }), probe("b", { error: "network" })]);
  assert.equal(state.inputTokens, 700);
});

Deno.test("a failed scrape keeps the probes' state and marks the server load unavailable", () => {
  const state = addFailedScrape(run([probe("a")]), "HTTP 404");
  assert.equal(state.server.status, "unavailable");
  assert.equal(state.server.reason, "HTTP 404");
  assert.equal(state.probes, 1);
});
