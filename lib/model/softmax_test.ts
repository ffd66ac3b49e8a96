import assert from "node:assert/strict";
import {
  fitSoftmax,
  fitTemperature,
  meanTarget,
  softmaxInPlace,
  softmaxLoss,
  type SoftmaxProblem,
  temperedCrossEntropy,
} from "./softmax.ts";

function tinyProblem(l2: number): SoftmaxProblem {
  return {
    classes: 3,
    features: 4,
    l2,
    rows: [
      {
        indices: Int32Array.of(0, 2),
        values: Float64Array.of(0.6, 0.8),
        target: Float64Array.of(0.7, 0.2, 0.1),
      },
      {
        indices: Int32Array.of(1),
        values: Float64Array.of(1),
        target: Float64Array.of(0, 0.5, 0.5),
      },
      {
        indices: Int32Array.of(2, 3),
        values: Float64Array.of(-0.5, 0.5),
        target: Float64Array.of(0.2, 0.2, 0.6),
      },
    ],
  };
}

Deno.test("`softmaxLoss()` gradient agrees with central finite differences", () => {
  const problem = tinyProblem(0.05);
  const size = problem.features * problem.classes + problem.classes;
  const params = Float64Array.from({ length: size }, (_, i) => Math.sin(i + 1) * 0.7);
  const gradient = new Float64Array(size);
  softmaxLoss(problem, params, gradient);
  const scratch = new Float64Array(size);
  const h = 1e-6;
  for (let i = 0; i < size; i++) {
    const plus = Float64Array.from(params);
    const minus = Float64Array.from(params);
    plus[i] = plus[i]! + h;
    minus[i] = minus[i]! - h;
    const numeric = (softmaxLoss(problem, plus, scratch) - softmaxLoss(problem, minus, scratch)) /
      (2 * h);
    assert.ok(
      Math.abs(numeric - gradient[i]!) < 1e-7,
      `parameter ${i}: analytic ${gradient[i]}, numeric ${numeric}`,
    );
  }
});

Deno.test("`softmaxLoss()` equals the hand-computed cross-entropy at zero weights", () => {
  const problem = tinyProblem(0);
  const size = problem.features * problem.classes + problem.classes;
  const loss = softmaxLoss(problem, new Float64Array(size), new Float64Array(size));
  // uniform prediction: each row's cross-entropy is ln 3
  assert.ok(Math.abs(loss - Math.log(3)) < 1e-12);
});

Deno.test("`softmaxLoss()` rejects parameters of the wrong length", () => {
  assert.throws(
    () => softmaxLoss(tinyProblem(0), new Float64Array(3), new Float64Array(3)),
    RangeError,
  );
});

Deno.test("`softmaxInPlace()` gives a distribution even for huge logits", () => {
  const p = softmaxInPlace(Float64Array.of(1000, 1001, -1000));
  assert.ok(p.every(Number.isFinite));
  assert.ok(Math.abs(p.reduce((s, x) => s + x, 0) - 1) < 1e-12);
  assert.ok(p[1]! > p[0]!);
});

Deno.test("`fitSoftmax()` lowers the loss and starts its biases at the mean target", () => {
  const problem = tinyProblem(0.001);
  const mean = meanTarget(problem);
  const size = problem.features * problem.classes + problem.classes;
  const start = new Float64Array(size);
  for (let c = 0; c < 3; c++) start[problem.features * 3 + c] = Math.log(mean[c]!);
  const before = softmaxLoss(problem, start, new Float64Array(size));
  const fitted = fitSoftmax(problem);
  const params = new Float64Array(size);
  params.set(fitted.weights);
  params.set(fitted.bias, fitted.weights.length);
  const after = softmaxLoss(problem, params, new Float64Array(size));
  assert.ok(after < before - 0.1, `loss ${before} → ${after}`);
  // with almost no penalty the fit approaches the soft targets themselves
  const p = softmaxInPlace(
    Float64Array.from(fitted.bias, (b, c) => b + fitted.weights[1 * 3 + c]!),
  );
  assert.ok(Math.abs(p[1]! - 0.5) < 0.05 && p[0]! < 0.05, `row 2 predicted ${p}`);
});

Deno.test("`fitSoftmax()` refuses a single-class problem", () => {
  assert.throws(() => fitSoftmax({ classes: 1, features: 1, l2: 0, rows: [] }), RangeError);
});

Deno.test("`fitTemperature()` recovers the temperature that produced the targets", () => {
  const logits = [
    Float64Array.of(2, 0, -1),
    Float64Array.of(-1, 3, 0.5),
    Float64Array.of(0.3, 0.1, 2.5),
    Float64Array.of(1, 1, -2),
  ];
  const targets = logits.map((z) => softmaxInPlace(Float64Array.from(z), 2));
  const temperature = fitTemperature(logits, targets);
  assert.ok(Math.abs(temperature - 2) < 1e-3, `temperature ${temperature}`);
  assert.ok(
    temperedCrossEntropy(logits, targets, temperature) <= temperedCrossEntropy(logits, targets, 1),
  );
  assert.equal(fitTemperature([], []), 1);
});
