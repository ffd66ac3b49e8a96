import assert from "node:assert/strict";
import { shuffle } from "../metrics/rng.ts";
import type { LabelledItem } from "./schemas.ts";
import { metricsAt, OVERALL_LANE, splitHalves, sweepCurveRows, thresholdSweep } from "./sweep.ts";
import { sweepTable } from "./sweep_report.ts";

const P: Record<string, [number, boolean]> = {
  a: [0.95, true],
  b: [0.85, true],
  c: [0.75, false],
  d: [0.65, true],
  e: [0.55, false],
  f: [0.45, true],
  g: [0.30, false],
  h: [0.10, false],
};
const items: LabelledItem[] = Object.entries(P).map(([id, [p_yes, label]]) => ({
  id,
  lane: "w/q",
  p_yes,
  label,
}));

Deno.test("metricsAt() counts passes, false passes and false fails by hand", () => {
  // Bar 0.5 passes a, b, c, d, e: c and e are labelled no (false passes); f fails but is yes.
  const m = metricsAt(items, 0.5);
  assert.deepEqual(
    { ...m, falsePassUpper: undefined },
    {
      n: 8,
      positives: 4,
      negatives: 4,
      agreement: 5 / 8,
      falsePasses: 2,
      falsePassRate: 0.5,
      falsePassUpper: undefined,
      falseFails: 1,
      falseFailRate: 0.25,
    },
  );
  // A pass is P(yes) ≥ bar: the item at exactly 0.65 passes a 0.65 bar.
  assert.equal(metricsAt([{ id: "x", lane: "l", p_yes: 0.65, label: true }], 0.65).falseFails, 0);
  assert.equal(metricsAt([], 0.5).agreement, null);
});

Deno.test("splitHalves() is seeded, order-free, and splits ⌈n/2⌉ / ⌊n/2⌋", () => {
  const halves = splitHalves(items, 0);
  assert.deepEqual(halves.select.map((i) => i.id), ["e", "h", "d", "f"]);
  assert.deepEqual(halves.score.map((i) => i.id), ["g", "b", "a", "c"]);
  const again = splitHalves(shuffle(items, 99), 0);
  assert.deepEqual(again.select.map((i) => i.id), ["e", "h", "d", "f"]);
  assert.equal(splitHalves(items.slice(0, 7), 3).select.length, 4);
  assert.notDeepEqual(splitHalves(items, 1).select.map((i) => i.id), ["e", "h", "d", "f"]);
});

Deno.test("thresholdSweep() chooses on the selection half and scores on the held-out half", () => {
  // Seed 0: selection {e .55 no, h .10 no, d .65 yes, f .45 yes}, held out {g .30 no, b .85 yes,
  // a .95 yes, c .75 no}. On the selection half 3/4 agree for bars in (0.10, 0.45] and
  // (0.55, 0.65]; every other bar gets 2/4. The tie goes to the highest bar: 0.65.
  const sweep = thresholdSweep(items, { seed: 0 });
  const lane = sweep.lanes[0];
  assert.ok(lane);
  assert.equal(lane.lane, "w/q");
  assert.equal(lane.chosen, 0.65);
  assert.equal(lane.selected?.agreement, 0.75);
  assert.equal(lane.selected?.falseFails, 1); // f
  // Held out at 0.65: g fails (right), a and b pass (right), c passes (a false pass).
  assert.equal(lane.heldOut?.agreement, 0.75);
  assert.equal(lane.heldOut?.falsePasses, 1);
  assert.equal(lane.heldOut?.negatives, 2);
  assert.equal(lane.heldOut?.falsePassRate, 0.5);
  assert.equal(lane.heldOut?.falseFailRate, 0);
  // One false pass in two: the exact bound solves 1 − p² = 0.05, so p = √0.95.
  assert.ok(Math.abs((lane.heldOut?.falsePassUpper ?? 0) - Math.sqrt(0.95)) < 1e-9);
  // The default 0.70 bar on the held-out half lets c (0.75) through as well.
  assert.equal(lane.atDefault.falsePasses, 1);
  // The curve has every bar, not one number.
  assert.equal(lane.curve.length, 101);
  assert.equal(lane.curve[45]?.select.agreement, 0.75);
  assert.equal(lane.curve[50]?.select.agreement, 0.5);
  // One lane: the overall sweep is the same.
  assert.equal(sweep.overall.lane, OVERALL_LANE);
  assert.equal(sweep.overall.chosen, 0.65);
});

Deno.test("thresholdSweep() sweeps each lane on its own and pools them overall", () => {
  const other = items.map((i) => ({ ...i, id: `o-${i.id}`, lane: "w/other", p_yes: 1 - i.p_yes }));
  const sweep = thresholdSweep([...items, ...other], { seed: 0 });
  assert.deepEqual(sweep.lanes.map((l) => l.lane), ["w/other", "w/q"]);
  assert.equal(sweep.overall.n, 16);
  assert.equal(sweep.lanes[1]?.chosen, 0.65); // unchanged by the other lane
  assert.equal(sweepCurveRows(sweep).length, 3 * 101 * 2);
  const text = sweepTable(sweep);
  assert.match(text, /w\/q\s+4\/4\s+0\.65\s+75\.0%\s+1\/2/);
});

Deno.test("thresholdSweep() refuses empty input and bars outside [0, 1]", () => {
  assert.throws(() => thresholdSweep([]), RangeError);
  assert.throws(() => thresholdSweep(items, { thresholds: [0.5, 1.2] }), RangeError);
});
