/**
 * A small, deterministic L-BFGS minimiser for smooth convex objectives (plain float64 loops, a
 * fixed iteration budget, a backtracking line search), enough for softmax regression.
 *
 * @module
 */

/** An objective: writes the gradient at `x` into `gradient` and returns the value at `x`. */
export type Objective = (x: Float64Array, gradient: Float64Array) => number;

/** Options of {@linkcode minimize}. */
export interface MinimizeOptions {
  /**
   * Maximum number of iterations (each accepted step is one).
   *
   * @default {200}
   */
  maxIterations?: number;
  /**
   * Number of correction pairs kept.
   *
   * @default {10}
   */
  history?: number;
  /**
   * Stop when the gradient's largest absolute entry falls below this.
   *
   * @default {1e-7}
   */
  gradientTolerance?: number;
}

/** Result of {@linkcode minimize}. */
export interface MinimizeResult {
  /** The last accepted point. */
  x: Float64Array;
  /** The objective there. */
  value: number;
  /** Accepted iterations. */
  iterations: number;
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}

function maxAbs(a: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const v = Math.abs(a[i] as number);
    if (v > m) m = v;
  }
  return m;
}

/**
 * Minimises an objective with L-BFGS from a starting point.
 *
 * The search direction comes from the two-loop recursion over the last `history` pairs; a step
 * is accepted when it satisfies the Armijo condition (halving from 1, at most 40 times). A pair
 * whose curvature s·y is not positive is skipped. The run stops at `maxIterations`, when the
 * gradient is small, or when no step decreases the objective.
 *
 * @param objective The function to minimise, with its gradient.
 * @param start The starting point (not modified).
 * @param options Iteration budget and tolerances.
 * @returns The best point found, its value and the number of iterations.
 * @throws {RangeError} When the objective is not finite at the start.
 * @example
 * ```ts
 * import { minimize } from "./_lbfgs.ts";
 * const result = minimize((x, g) => {
 *   g[0] = 2 * (x[0]! - 3);
 *   return (x[0]! - 3) ** 2;
 * }, new Float64Array([0]));
 * if (Math.abs(result.x[0]! - 3) > 1e-6) throw new Error("minimum at 3");
 * ```
 */
export function minimize(
  objective: Objective,
  start: Float64Array,
  options: MinimizeOptions = {},
): MinimizeResult {
  const maxIterations = options.maxIterations ?? 200;
  const m = options.history ?? 10;
  const tolerance = options.gradientTolerance ?? 1e-7;
  const n = start.length;
  let x = Float64Array.from(start);
  let g = new Float64Array(n);
  let value = objective(x, g);
  if (!Number.isFinite(value)) {
    throw new RangeError(`Cannot minimise: the objective is "${value}" at the starting point`);
  }
  const sList: Float64Array[] = [];
  const yList: Float64Array[] = [];
  const rhoList: number[] = [];
  const alpha = new Float64Array(m);
  const direction = new Float64Array(n);
  let nextX = new Float64Array(n);
  let nextG = new Float64Array(n);
  let iterations = 0;
  while (iterations < maxIterations && maxAbs(g) > tolerance) {
    for (let i = 0; i < n; i++) direction[i] = -(g[i] as number);
    const count = sList.length;
    for (let c = count - 1; c >= 0; c--) {
      const a = (rhoList[c] as number) * dot(sList[c] as Float64Array, direction);
      alpha[c] = a;
      const y = yList[c] as Float64Array;
      for (let i = 0; i < n; i++) direction[i] = (direction[i] as number) - a * (y[i] as number);
    }
    if (count > 0) {
      const s = sList[count - 1] as Float64Array;
      const y = yList[count - 1] as Float64Array;
      const gamma = dot(s, y) / dot(y, y);
      for (let i = 0; i < n; i++) direction[i] = (direction[i] as number) * gamma;
    } else {
      const scale = 1 / Math.max(1, Math.sqrt(dot(g, g)));
      for (let i = 0; i < n; i++) direction[i] = (direction[i] as number) * scale;
    }
    for (let c = 0; c < count; c++) {
      const b = (rhoList[c] as number) * dot(yList[c] as Float64Array, direction);
      const s = sList[c] as Float64Array;
      const a = alpha[c] as number;
      for (let i = 0; i < n; i++) {
        direction[i] = (direction[i] as number) + (a - b) * (s[i] as number);
      }
    }
    let slope = dot(g, direction);
    if (slope >= 0) {
      for (let i = 0; i < n; i++) direction[i] = -(g[i] as number);
      slope = dot(g, direction);
      sList.length = 0;
      yList.length = 0;
      rhoList.length = 0;
    }
    let step = 1;
    let nextValue = Infinity;
    let accepted = false;
    for (let tries = 0; tries < 40; tries++) {
      for (let i = 0; i < n; i++) nextX[i] = (x[i] as number) + step * (direction[i] as number);
      nextValue = objective(nextX, nextG);
      if (Number.isFinite(nextValue) && nextValue <= value + 1e-4 * step * slope) {
        accepted = true;
        break;
      }
      step /= 2;
    }
    if (!accepted || !(nextValue < value)) break;
    const s = new Float64Array(n);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      s[i] = (nextX[i] as number) - (x[i] as number);
      y[i] = (nextG[i] as number) - (g[i] as number);
    }
    const sy = dot(s, y);
    if (sy > 1e-12) {
      if (sList.length === m) {
        sList.shift();
        yList.shift();
        rhoList.shift();
      }
      sList.push(s);
      yList.push(y);
      rhoList.push(1 / sy);
    }
    [x, nextX] = [nextX, x];
    [g, nextG] = [nextG, g];
    value = nextValue;
    iterations++;
  }
  return { x, value, iterations };
}
