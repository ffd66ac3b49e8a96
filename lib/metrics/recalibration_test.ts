import assert from "node:assert/strict";
import {
  applyCalibration,
  calibrationFigures,
  fitCalibration,
  RECALIBRATION_METHODS,
  RECALIBRATION_REGISTRY,
} from "./recalibration.ts";
import { seededRandom } from "./rng.ts";

function yesNo(p: number, gold: boolean) {
  return { predicted: { true: p, false: 1 - p }, gold: gold ? "true" : "false" };
}

/** Over-confident yes/no items: the true P(yes) is q, the reported one sharper. */
function overConfident(n: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => {
    const q = 0.05 + 0.9 * random();
    const reported = q ** 3 / (q ** 3 + (1 - q) ** 3);
    return yesNo(reported, random() < q);
  });
}

Deno.test("the recalibration registry defines each method once", () => {
  assert.deepEqual(RECALIBRATION_REGISTRY.map((d) => d.name), [...RECALIBRATION_METHODS]);
  assert.throws(() => fitCalibration("magic", [yesNo(0.5, true)]), {
    name: "RangeError",
    message: 'Cannot recalibrate with "magic": methods are temperature, platt, isotonic',
  });
  assert.throws(() => fitCalibration("platt", []), { name: "RangeError" });
});

Deno.test("`fitCalibration()` isotonic pools adjacent violators (hand-computed)", () => {
  // P(yes) 0.1 0.2 0.3 0.4 with labels 0 1 0 1: 0.2 and 0.3 violate and pool to 0.5.
  const fitted = fitCalibration("isotonic", [
    yesNo(0.1, false),
    yesNo(0.2, true),
    yesNo(0.3, false),
    yesNo(0.4, true),
  ]);
  assert.deepEqual(fitted.params, { x: [0.1, 0.3, 0.4], y: [0, 0.5, 1] });
  assert.equal(fitted.fitN, 4);
  for (const [p, want] of [[0.05, 0], [0.1, 0], [0.15, 0.5], [0.3, 0.5], [0.35, 1], [0.9, 1]]) {
    assert.equal(applyCalibration(fitted, { true: p!, false: 1 - p! }).true, want, `p ${p}`);
  }
});

Deno.test("`fitCalibration()` temperature and Platt undo a known sharpening", () => {
  // reported = q³/(q³+(1−q)³): logit(reported) = 3·logit(q), so T = 3 and Platt a = 1/3, b = 0.
  const items = overConfident(20000, 1);
  const t = fitCalibration("temperature", items).params.temperature as number;
  assert.ok(Math.abs(t - 3) < 0.25, `T ${t}`);
  const { a, b } = fitCalibration("platt", items).params as { a: number; b: number };
  assert.ok(Math.abs(a - 1 / 3) < 0.03 && Math.abs(b) < 0.05, `a ${a}, b ${b}`);
  const tempered = applyCalibration({ method: "temperature", params: { temperature: 3 } }, {
    true: 27 / 28,
    false: 1 / 28,
  });
  assert.ok(Math.abs((tempered.true ?? 0) - 0.75) < 1e-9);
});

Deno.test("`calibrationFigures()` shows each method lowering held-out ECE and NLL", () => {
  const fit = overConfident(3000, 2);
  const heldOut = overConfident(3000, 3);
  for (const method of RECALIBRATION_METHODS) {
    const figures = calibrationFigures(fitCalibration(method, fit), heldOut, { replicates: 50 });
    assert.equal(figures.n, 3000);
    const ece = figures.ece;
    assert.ok(ece.after.value! < ece.before.value! / 2, `${method}: ECE ${JSON.stringify(ece)}`);
    assert.ok(figures.nll.after.value! < figures.nll.before.value!, method);
    assert.ok(figures.brier.after.value! < figures.brier.before.value!, method);
    const [lo, hi] = ece.before.interval!;
    assert.ok(lo <= ece.before.value! && ece.before.value! <= hi);
    assert.ok(figures.reliability.after.length > 0);
  }
});

Deno.test("`calibrationFigures()` with no calibration leaves the figures unchanged", () => {
  const items = [yesNo(0.9, true), yesNo(0.8, false)];
  const figures = calibrationFigures(null, items, { replicates: 0 });
  assert.deepEqual(figures.ece.after, figures.ece.before);
  // Brier: (0.1² + 0.1²) and (0.8² + 0.8²), mean 0.65; ECE: |0.9 − 1|·½ + |0.8 − 0|·½ = 0.45.
  assert.ok(Math.abs(figures.brier.before.value! - 0.65) < 1e-12);
  assert.ok(Math.abs(figures.ece.before.value! - 0.45) < 1e-12);
  assert.equal(figures.brier.before.interval, null);
});

Deno.test("yes/no methods refuse a distribution that is not {true, false}", () => {
  assert.throws(
    () => fitCalibration("platt", [{ predicted: { a: 0.5, b: 0.5 }, gold: "a" }]),
    { name: "TypeError" },
  );
});
