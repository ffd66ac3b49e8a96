/**
 * Softmax regression on soft labels: the loss, its gradient, the fit, and a temperature fitted
 * on held-out data.
 *
 * Parameters are one flat float64 array: the weights feature-major (`w[j·K + k]` is feature `j`'s
 * weight for class `k`), then the `K` biases. The loss is the mean cross-entropy of the targets
 * (gold distributions) under the predicted distribution — equal to the mean KL(gold ‖ pred) up to
 * a constant — plus `l2/2 · ‖w‖²` (biases are not penalised).
 *
 * @module
 */
import { softmaxInPlace } from "../metrics/mod.ts";
import { minimize } from "./_lbfgs.ts";

/** One training row: a sparse feature vector over compact feature ids and a target distribution. */
export interface SoftmaxRow {
  /** Compact feature ids (0 … features − 1). */
  indices: Int32Array;
  /** Feature values. */
  values: Float64Array;
  /** Target probability per class (sums to 1). */
  target: Float64Array;
}

/** A softmax regression problem. */
export interface SoftmaxProblem {
  /** Training rows. */
  rows: SoftmaxRow[];
  /** Number of classes. */
  classes: number;
  /** Number of compact features. */
  features: number;
  /** L2 penalty on the weights. */
  l2: number;
}

/** Fitted softmax parameters. */
export interface SoftmaxParameters {
  /** Weights, feature-major: `weights[j * classes + k]`. */
  weights: Float64Array;
  /** Bias per class. */
  bias: Float64Array;
}

/** Options of {@linkcode fitSoftmax}. */
export interface FitSoftmaxOptions {
  /**
   * Maximum L-BFGS iterations.
   *
   * @default {300}
   */
  maxIterations?: number;
}

// The kernel lives in `metrics` (the temperature what-if shares it); the model API still offers it.
export { softmaxInPlace };

/** Smallest probability a log is taken of, so a zero never produces an infinite loss. */
export const LOG_FLOOR = 1e-12;

/**
 * Writes a row's logits under flat parameters into `out`.
 *
 * @param params Flat parameters (weights feature-major, then biases).
 * @param row The row.
 * @param out Receives the `K` logits.
 * @returns `out`.
 */
export function rowLogits(
  params: Float64Array,
  row: { indices: Int32Array; values: Float64Array },
  out: Float64Array,
): Float64Array {
  const k = out.length;
  const biasAt = params.length - k;
  for (let c = 0; c < k; c++) out[c] = params[biasAt + c] as number;
  for (let i = 0; i < row.indices.length; i++) {
    const base = (row.indices[i] as number) * k;
    const v = row.values[i] as number;
    for (let c = 0; c < k; c++) out[c] = (out[c] as number) + v * (params[base + c] as number);
  }
  return out;
}

/**
 * The regularised mean cross-entropy at `params`, with its gradient written into `gradient`.
 *
 * @param problem The rows, sizes and L2 penalty.
 * @param params Flat parameters, length `features·K + K`.
 * @param gradient Receives the gradient (same length).
 * @returns The loss.
 * @throws {RangeError} When the parameter or gradient length does not fit the problem.
 */
export function softmaxLoss(
  problem: SoftmaxProblem,
  params: Float64Array,
  gradient: Float64Array,
): number {
  const k = problem.classes;
  const size = problem.features * k + k;
  if (params.length !== size || gradient.length !== size) {
    throw new RangeError(
      `Cannot compute the softmax loss: expected ${size} parameters, got "${params.length}" and a gradient of "${gradient.length}"`,
    );
  }
  const n = problem.rows.length;
  const weightCount = problem.features * k;
  let loss = 0;
  for (let i = 0; i < weightCount; i++) {
    const w = params[i] as number;
    loss += 0.5 * problem.l2 * w * w;
    gradient[i] = problem.l2 * w;
  }
  for (let c = 0; c < k; c++) gradient[weightCount + c] = 0;
  if (n === 0) return loss;
  const p = new Float64Array(k);
  const inv = 1 / n;
  for (const row of problem.rows) {
    rowLogits(params, row, p);
    softmaxInPlace(p);
    for (let c = 0; c < k; c++) {
      const t = row.target[c] as number;
      const q = p[c] as number;
      if (t > 0) loss -= inv * t * Math.log(Math.max(q, LOG_FLOOR));
      p[c] = inv * (q - t);
      gradient[weightCount + c] = (gradient[weightCount + c] as number) + (p[c] as number);
    }
    for (let i = 0; i < row.indices.length; i++) {
      const base = (row.indices[i] as number) * k;
      const v = row.values[i] as number;
      for (let c = 0; c < k; c++) {
        gradient[base + c] = (gradient[base + c] as number) + v * (p[c] as number);
      }
    }
  }
  return loss;
}

/**
 * The mean target distribution of a problem's rows (uniform when there are none).
 *
 * @param problem The problem.
 * @returns Probability per class.
 */
export function meanTarget(problem: SoftmaxProblem): Float64Array {
  const k = problem.classes;
  const mean = new Float64Array(k);
  if (problem.rows.length === 0) return mean.fill(1 / k);
  for (const row of problem.rows) {
    for (let c = 0; c < k; c++) mean[c] = (mean[c] as number) + (row.target[c] as number);
  }
  for (let c = 0; c < k; c++) mean[c] = (mean[c] as number) / problem.rows.length;
  return mean;
}

/**
 * Fits softmax regression with L-BFGS, starting from zero weights and biases at the log of the
 * mean target distribution.
 *
 * @param problem Rows, sizes and L2 penalty.
 * @param options Iteration budget.
 * @returns The fitted weights and biases.
 * @throws {RangeError} When the problem has fewer than two classes.
 */
export function fitSoftmax(
  problem: SoftmaxProblem,
  options: FitSoftmaxOptions = {},
): SoftmaxParameters {
  const k = problem.classes;
  if (!Number.isInteger(k) || k < 2) {
    throw new RangeError(`Cannot fit a softmax: "${k}" classes, need at least 2`);
  }
  const weightCount = problem.features * k;
  const start = new Float64Array(weightCount + k);
  const mean = meanTarget(problem);
  for (let c = 0; c < k; c++) start[weightCount + c] = Math.log(Math.max(mean[c] as number, 1e-6));
  const result = minimize(
    (x, g) => softmaxLoss(problem, x, g),
    start,
    { maxIterations: options.maxIterations ?? 300, gradientTolerance: 1e-8 },
  );
  return { weights: result.x.slice(0, weightCount), bias: result.x.slice(weightCount) };
}

/**
 * Mean cross-entropy of targets under softmax(logits / temperature).
 *
 * @param logits One logit vector per row.
 * @param targets One target distribution per row.
 * @param temperature The temperature.
 * @returns The mean cross-entropy (0 for no rows).
 */
export function temperedCrossEntropy(
  logits: readonly Float64Array[],
  targets: readonly Float64Array[],
  temperature: number,
): number {
  if (logits.length === 0) return 0;
  let total = 0;
  for (let i = 0; i < logits.length; i++) {
    const p = softmaxInPlace(Float64Array.from(logits[i] as Float64Array), temperature);
    const t = targets[i] as Float64Array;
    for (let c = 0; c < p.length; c++) {
      const g = t[c] as number;
      if (g > 0) total -= g * Math.log(Math.max(p[c] as number, LOG_FLOOR));
    }
  }
  return total / logits.length;
}

/**
 * The temperature in [0.25, 4] minimising held-out cross-entropy, by golden-section search on
 * its logarithm (60 fixed steps, so the result is deterministic). No rows → 1.
 *
 * @param logits Held-out logit vectors.
 * @param targets Held-out target distributions.
 * @returns The fitted temperature.
 */
export function fitTemperature(
  logits: readonly Float64Array[],
  targets: readonly Float64Array[],
): number {
  if (logits.length === 0) return 1;
  const ratio = (Math.sqrt(5) - 1) / 2;
  let lo = Math.log(0.25);
  let hi = Math.log(4);
  let a = hi - ratio * (hi - lo);
  let b = lo + ratio * (hi - lo);
  let fa = temperedCrossEntropy(logits, targets, Math.exp(a));
  let fb = temperedCrossEntropy(logits, targets, Math.exp(b));
  for (let step = 0; step < 60; step++) {
    if (fa <= fb) {
      hi = b;
      b = a;
      fb = fa;
      a = hi - ratio * (hi - lo);
      fa = temperedCrossEntropy(logits, targets, Math.exp(a));
    } else {
      lo = a;
      a = b;
      fa = fb;
      b = lo + ratio * (hi - lo);
      fb = temperedCrossEntropy(logits, targets, Math.exp(b));
    }
  }
  return Math.exp((lo + hi) / 2);
}
