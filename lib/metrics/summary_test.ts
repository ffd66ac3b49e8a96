import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { METRIC_NAMES, METRIC_REGISTRY } from "./registry.ts";
import {
  breakdown,
  type BreakdownInput,
  INCOMPLETE_RATING,
  PRIOR_ACCURACY,
  rating,
  summarize,
  TEACHER_AGREEMENT,
} from "./summary.ts";

const timeout = { kind: "timeout" as const, message: "Timed out" };

function decision(
  c: string,
  workflow: string,
  question: string,
  type: "choice" | "score" | "noul",
  fields: Partial<BreakdownInput>,
): BreakdownInput {
  return {
    case: c,
    workflow,
    question,
    type,
    correct: false,
    confidence: 0.5,
    kl: 0.2,
    brier: 0.3,
    error: null,
    latency_ms: 100,
    input_tokens: 50,
    ...fields,
  };
}

// case a (w1): 2 decisions, latency 100, tokens 50 each (one request → 50 tokens)
// case b (w1): 2 decisions, latency 300, tokens 70
// case c (w2): 1 decision that failed (no latency, no tokens)
// case d (w2): 1 decision, latency 200, tokens unknown
const run: BreakdownInput[] = [
  decision("a", "w1", "q1", "choice", { correct: true, confidence: 0.9, kl: 0.1, brier: 0.1 }),
  decision("a", "w1", "q2", "noul", { correct: false, confidence: 0.6, kl: 0.5, brier: 0.5 }),
  decision("b", "w1", "q1", "choice", {
    correct: true,
    confidence: 0.8,
    kl: 0.3,
    brier: 0.3,
    latency_ms: 300,
    input_tokens: 70,
  }),
  decision("b", "w1", "q2", "noul", {
    correct: true,
    confidence: 0.7,
    kl: 0.3,
    brier: 0.3,
    latency_ms: 300,
    input_tokens: 70,
  }),
  decision("c", "w2", "q1", "score", {
    correct: false,
    confidence: null,
    kl: null,
    brier: null,
    latency_ms: null,
    input_tokens: null,
    error: timeout,
  }),
  decision("d", "w2", "q1", "score", {
    correct: false,
    confidence: 0.4,
    kl: 0.8,
    brier: 0.8,
    latency_ms: 200,
    input_tokens: null,
  }),
];

Deno.test("`summarize()` matches hand-computed counts and metrics", () => {
  const s = summarize(run, { resamples: 200 });
  assert.equal(s.decisions, 6);
  assert.equal(s.cases, 4);
  assert.equal(s.answered, 5);
  assert.equal(s.errors, 1);
  assertClose(s.metrics.accuracy, 3 / 6, 1e-12); // the error counts as a miss
  assertClose(s.metrics.kl, 2.0 / 5, 1e-12); // (0.1 + 0.5 + 0.3 + 0.3 + 0.8) / 5
  assertClose(s.metrics.brier, 2.0 / 5, 1e-12); // same values
  assertClose(s.meanConfidence, 3.4 / 5, 1e-12); // (0.9 + 0.6 + 0.8 + 0.7 + 0.4) / 5
  // bins: 4 (0.4, wrong), 6 (0.6, wrong), 7 (0.7, right), 8 (0.8, right), 9 (0.9, right)
  // ECE = (0.4 + 0.6 + 0.3 + 0.2 + 0.1) / 5 = 0.32
  assertClose(s.metrics.ece, 0.32, 1e-12);
  assert.deepEqual(s.reliability.map((r) => r.bin), [4, 6, 7, 8, 9]);
});

Deno.test("`summarize()` counts latency and input tokens once per case", () => {
  const s = summarize(run, { resamples: 0 });
  // latencies per answered case: a 100, b 300, d 200 → sorted [100, 200, 300]
  // p50 = 200; p95: h = 2·0.95 = 1.9 → 200 + 0.9·100 = 290
  assert.ok(s.latency !== null);
  assertClose(s.latency.p50, 200, 1e-9);
  assertClose(s.latency.p95, 290, 1e-9);
  assert.equal(s.inputTokens, 50 + 70); // a and b once each; c and d report none
});

Deno.test("`summarize()` carries bootstrap intervals that contain the point estimates", () => {
  const s = summarize(run);
  for (const name of ["accuracy", "kl", "brier"] as const) {
    const interval = s.intervals[name];
    const point = s.metrics[name];
    assert.ok(interval !== null && point !== null);
    assert.ok(
      interval[0] <= point && point <= interval[1],
      `${name} ${point} outside [${interval}]`,
    );
  }
  assert.deepEqual(summarize(run).intervals, s.intervals, "seeded: same intervals on a rerun");
});

Deno.test("`summarize()` reports n/a (null), never 0, when nothing was answered", async (t) => {
  await t.step("no decisions", () => {
    const s = summarize([]);
    assert.equal(s.decisions, 0);
    assert.equal(s.metrics.accuracy, null);
    assert.equal(s.metrics.kl, null);
    assert.equal(s.metrics.ece, null);
    assert.equal(s.latency, null);
    assert.equal(s.inputTokens, null);
    assert.deepEqual(s.intervals, Object.fromEntries(METRIC_NAMES.map((name) => [name, null])));
    assert.equal(rating(s), INCOMPLETE_RATING);
  });
  await t.step("only errors", () => {
    const s = summarize(run.filter((d) => d.error !== null));
    assert.equal(s.answered, 0);
    assert.equal(s.errors, 1);
    assert.equal(s.metrics.accuracy, 0);
    assert.equal(s.metrics.kl, null);
    assert.equal(s.metrics.brier, null);
    assert.equal(s.metrics.ece, null);
    assert.equal(s.meanConfidence, null);
    assert.equal(s.latency, null);
    assert.equal(rating(s), "Incomplete: no successful cases");
  });
});

Deno.test("`breakdown()` groups by type, workflow and workflow/question in first-seen order", async (t) => {
  await t.step("type", () => {
    const rows = breakdown(run, "type", { resamples: 0 });
    assert.deepEqual(rows.map((r) => [r.key, r.decisions, r.metrics.accuracy]), [
      ["choice", 2, 1],
      ["noul", 2, 0.5],
      ["score", 2, 0],
    ]);
  });
  await t.step("workflow", () => {
    const rows = breakdown(run, "workflow", { resamples: 0 });
    assert.deepEqual(rows.map((r) => [r.key, r.decisions, r.answered, r.metrics.accuracy]), [
      ["w1", 4, 4, 0.75],
      ["w2", 2, 1, 0],
    ]);
  });
  await t.step("question", () => {
    const rows = breakdown(run, "question");
    assert.deepEqual(rows.map((r) => r.key), ["w1/q1", "w1/q2", "w2/q1"]);
    assert.deepEqual(rows[0]?.intervals.accuracy, [1, 1]);
    assertClose(rows[2]?.metrics.kl, 0.8, 1e-12); // the error is left out
  });
  await t.step("unknown grouping", () => {
    assert.throws(() => breakdown(run, "model" as "type"), RangeError);
  });
});

Deno.test("`rating()` follows the dataset card's reference points", async (t) => {
  assert.equal(PRIOR_ACCURACY, 0.47);
  assert.equal(TEACHER_AGREEMENT, 0.735);
  const cases: Array<[number, number, string]> = [
    [0, 2000, "★"],
    [940 / 2000, 2000, "★"], // exactly the prior: at or below → ★
    [941 / 2000, 2000, "★★"],
    [1469 / 2000, 2000, "★★"],
    [1470 / 2000, 2000, "★★★"], // exactly teacher agreement: at or above → ★★★
    [1, 2000, "★★★"],
    [0, 0, "Incomplete: no successful cases"],
  ];
  for (const [accuracy, answered, expected] of cases) {
    await t.step(`accuracy ${accuracy}, ${answered} answered → ${expected}`, () => {
      assert.equal(rating({ metrics: { accuracy }, answered }), expected);
    });
  }
});

Deno.test("`summarize()` bootstraps only the `intervalMetrics`; the others' intervals are null", () => {
  const decisions = [0, 1, 2, 3, 4, 5].map((i) =>
    decision(`c${i}`, "w", "q", "noul", { correct: i % 2 === 0, confidence: 0.5 + i / 20 })
  );
  const fresh = summarize(decisions, { resamples: 200, seed: 1 });
  const only = summarize(decisions, {
    resamples: 200,
    seed: 1,
    intervalMetrics: METRIC_REGISTRY.filter((m) => m.name === "accuracy" || m.name === "aurc"),
  });
  assert.deepEqual(only.metrics, fresh.metrics);
  assert.deepEqual(Object.keys(only.intervals), METRIC_NAMES);
  assert.deepEqual(only.intervals.accuracy, fresh.intervals.accuracy);
  assert.deepEqual(only.intervals.aurc, fresh.intervals.aurc);
  assert.notEqual(fresh.intervals.kl, null);
  for (const name of METRIC_NAMES.filter((n) => n !== "accuracy" && n !== "aurc")) {
    assert.equal(only.intervals[name], null, name);
  }
  // None: the values alone, every interval null in metric order (a run's worker fills them in).
  const none = summarize(decisions, { resamples: 200, seed: 1, intervalMetrics: [] });
  assert.deepEqual(none.metrics, fresh.metrics);
  assert.deepEqual(Object.entries(none.intervals), METRIC_NAMES.map((name) => [name, null]));
});
