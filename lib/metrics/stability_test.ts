import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { type RepeatInput, type StabilityInput, stabilitySummary } from "./stability.ts";

const official: StabilityInput[] = [
  { case: "a", workflow: "w", question: "q", predicted: { x: 0.6, y: 0.4 } },
  { case: "b", workflow: "w", question: "q", predicted: { x: 0.5, y: 0.5 } },
  { case: "a", workflow: "w", question: "r", predicted: { true: 0.9, false: 0.1 } },
  // unanswered official decision: its repeats are not compared
  { case: "b", workflow: "w", question: "r", predicted: null, error: { kind: "timeout" } },
];

function again(
  c: string,
  question: string,
  predicted: Record<string, number> | null,
  parallel: number,
): RepeatInput {
  return {
    case: c,
    workflow: "w",
    question,
    predicted,
    parallel,
    ...(predicted ? {} : { error: { kind: "timeout" } }),
  };
}

Deno.test("`stabilitySummary()` against hand-computed flips and drift", () => {
  const s = stabilitySummary(official, [
    // a/q: top x at 0.6 → 0.62 (drift 0.02), then y wins at parallel 4 (x 0.45: drift 0.15)
    again("a", "q", { x: 0.62, y: 0.38 }, 1),
    again("a", "q", { x: 0.45, y: 0.55 }, 4),
    // b/q: a 0.5/0.5 tie goes to x; unchanged → no flip, drift 0
    again("b", "q", { x: 0.5, y: 0.5 }, 1),
    again("b", "q", { x: 0.5, y: 0.5 }, 4),
    // a/r: 0.9 → 0.8 (drift 0.1), then a failed repeat
    again("a", "r", { true: 0.8, false: 0.2 }, 1),
    again("a", "r", null, 4),
    // b/r: the official answer failed
    again("b", "r", { true: 0.3, false: 0.7 }, 1),
  ]);
  assert.equal(s.overall.decisions, 3);
  assert.equal(s.overall.repeats, 5);
  assert.equal(s.overall.flipped, 1);
  assertClose(s.overall.flipRate, 1 / 3, 1e-12);
  assert.equal(s.overall.errors, 1);
  // per-decision drift (largest over repeats): 0.15, 0, 0.1 → median 0.1, p95 0.145, max 0.15
  assertClose(s.overall.drift!.median, 0.1, 1e-12);
  assertClose(s.overall.drift!.p95, 0.145, 1e-12);
  assertClose(s.overall.drift!.max, 0.15, 1e-12);
  assert.deepEqual(s.byParallel.map((r) => [r.key, r.decisions, r.flipped, r.errors]), [
    ["parallel 1", 3, 0, 0],
    ["parallel 4", 2, 1, 1],
  ]);
  assertClose(s.byParallel[0]!.drift!.max, 0.1, 1e-12);
  assert.deepEqual(s.byQuestion.map((r) => [r.key, r.decisions, r.flipped]), [
    ["w/q", 2, 1],
    ["w/r", 1, 0],
  ]);
});

Deno.test("identical repeats give exactly zero flips and drift", () => {
  const s = stabilitySummary(official, official.map((d) => ({ ...d, parallel: 8 })));
  assert.equal(s.overall.flipped, 0);
  assert.equal(s.overall.flipRate, 0);
  assert.deepEqual(s.overall.drift, { median: 0, p95: 0, max: 0 });
});

Deno.test("no repeats: nothing compared, n/a rather than 0", () => {
  const s = stabilitySummary(official, []);
  assert.equal(s.overall.decisions, 0);
  assert.equal(s.overall.flipRate, null);
  assert.equal(s.overall.drift, null);
  assert.deepEqual(s.byParallel, []);
});
