/**
 * Recalibration fitted and applied: one definition per method in `RECALIBRATION_REGISTRY`, each a
 * fit over labelled distributions that returns plain JSON parameters, and an apply that maps a
 * distribution through them (so a fitted calibration can be written to a file and applied later).
 *
 * - `temperature` (any question type): p_T(i) ∝ max(p_i, 1e-12)^(1/T), T minimising the NLL of
 *   the gold labels (golden-section search over 1/T in [0.05, 20]). It keeps the ranking.
 * - `platt` (yes/no): P'(yes) = σ(a·logit(P(yes)) + b), logit over P(yes) clamped to
 *   [1e-12, 1 − 1e-12]; a and b by Newton's method on the log-loss against Platt's smoothed
 *   targets ((N₊ + 1)/(N₊ + 2) for yes, 1/(N₋ + 2) for no), which keeps them finite on separable
 *   data.
 * - `isotonic` (yes/no): the non-decreasing step function of P(yes) closest in squared error to
 *   the labels (pool-adjacent-violators over the distinct P(yes) values, ascending); a value
 *   above the largest fitted P(yes) takes the last step's, below the smallest the first's.
 *
 * `calibrationFigures` reports a fitted calibration on labelled cases it was not fitted on:
 * the top-label 10-bin ECE, the mean NLL of the gold label and the Brier score (Σ over options of
 * (p − one-hot)²) before and after, each with a percentile bootstrap interval over the held-out
 * items, and the reliability bins before and after.
 *
 * @module
 */
import { KL_FLOOR } from "./score.ts";
import { type CalibrationBin, calibrationBins, eceOfBins } from "./calibration.ts";
import { fitTemperatureToLabels, type LabelledDistribution, temper } from "./temperature.ts";
import { seededRandom } from "./rng.ts";
import { probabilityOf, topOf } from "./_distribution.ts";

/** The recalibration methods, by name. */
export const RECALIBRATION_METHODS = ["temperature", "platt", "isotonic"] as const;

/** A recalibration method's name. */
export type RecalibrationMethod = typeof RECALIBRATION_METHODS[number];

/** A fitted calibration: the method, its parameters (plain JSON) and how many items fitted it. */
export interface FittedCalibration {
  /** The method. */
  method: RecalibrationMethod;
  /**
   * Its parameters: `{temperature}`, `{a, b}` (Platt) or `{x, y}` (isotonic: step upper ends of
   * P(yes), ascending, and the calibrated P(yes) of each step).
   */
  params: Record<string, number | number[]>;
  /** Labelled items it was fitted on. */
  fitN: number;
}

/** One recalibration method in {@linkcode RECALIBRATION_REGISTRY}. */
export interface RecalibrationDefinition {
  /** Its name (`--calibrate NAME`). */
  readonly name: RecalibrationMethod;
  /** What it does, one line. */
  readonly description: string;
  /** Whether it applies to yes/no (`noul`, options `true`/`false`) questions only. */
  readonly yesNoOnly: boolean;
  /**
   * Fits the method.
   *
   * @param items Labelled distributions (yes/no ones keyed `true`/`false` for yes/no methods).
   * @returns The parameters.
   */
  fit(items: readonly LabelledDistribution[]): Record<string, number | number[]>;
  /**
   * Applies fitted parameters to one distribution.
   *
   * @param params From `fit`.
   * @param predicted The distribution.
   * @returns The recalibrated distribution, same keys.
   */
  apply(
    params: Record<string, number | number[]>,
    predicted: Readonly<Record<string, number>>,
  ): Record<string, number>;
}

const P_FLOOR = KL_FLOOR;

function logit(p: number): number {
  const q = Math.min(Math.max(p, P_FLOOR), 1 - P_FLOOR);
  return Math.log(q / (1 - q));
}

function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

function yesOf(predicted: Readonly<Record<string, number>>): number {
  const p = predicted.true;
  if (typeof p !== "number" || !("false" in predicted)) {
    throw new TypeError(
      `Cannot recalibrate: a yes/no method needs a {true, false} distribution, got keys ${
        Object.keys(predicted).join(", ")
      }`,
    );
  }
  return p;
}

function yesNo(p: number): Record<string, number> {
  return { true: p, false: 1 - p };
}

function num(params: Record<string, number | number[]>, key: string): number {
  const value = params[key];
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(`Cannot recalibrate: parameter "${key}" is not a number`);
  }
  return value;
}

function list(params: Record<string, number | number[]>, key: string): number[] {
  const value = params[key];
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError(`Cannot recalibrate: parameter "${key}" is not a non-empty list`);
  }
  return value;
}

/** Platt's a and b by Newton's method on the smoothed-target log-loss. */
function fitPlatt(items: readonly LabelledDistribution[]): { a: number; b: number } {
  const xs: number[] = [];
  const ys: boolean[] = [];
  for (const { predicted, gold } of items) {
    xs.push(logit(yesOf(predicted)));
    ys.push(gold === "true");
  }
  const positives = ys.filter((y) => y).length;
  const negatives = ys.length - positives;
  const hi = (positives + 1) / (positives + 2);
  const lo = 1 / (negatives + 2);
  const loss = (a: number, b: number): number => {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) {
      const z = a * (xs[i] as number) + b;
      const t = ys[i] ? hi : lo;
      // −[t·ln σ(z) + (1 − t)·ln(1 − σ(z))], written stably.
      sum += Math.max(z, 0) - t * z + Math.log1p(Math.exp(-Math.abs(z)));
    }
    return sum;
  };
  let a = 1;
  let b = 0;
  let current = loss(a, b);
  for (let iteration = 0; iteration < 100; iteration++) {
    let g1 = 0, g2 = 0, h11 = 1e-9, h12 = 0, h22 = 1e-9;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i] as number;
      const p = sigmoid(a * x + b);
      const d = p - (ys[i] ? hi : lo);
      const w = p * (1 - p);
      g1 += d * x;
      g2 += d;
      h11 += w * x * x;
      h12 += w * x;
      h22 += w;
    }
    const det = h11 * h22 - h12 * h12;
    if (!(det > 0)) break;
    const da = (h22 * g1 - h12 * g2) / det;
    const db = (h11 * g2 - h12 * g1) / det;
    // Newton's step, halved until the loss does not rise.
    let step = 1;
    let next = loss(a - da, b - db);
    while (next > current && step > 1e-6) {
      step /= 2;
      next = loss(a - step * da, b - step * db);
    }
    if (next > current) break;
    a -= step * da;
    b -= step * db;
    const improved = current - next;
    current = next;
    if (improved < 1e-12 * Math.max(1, current)) break;
  }
  return { a, b };
}

/** Pool-adjacent-violators over (P(yes), label), grouped by distinct P(yes). */
function fitIsotonic(items: readonly LabelledDistribution[]): { x: number[]; y: number[] } {
  const points = items.map(({ predicted, gold }) => ({
    p: yesOf(predicted),
    y: gold === "true" ? 1 : 0,
  })).sort((u, v) => u.p - v.p);
  const blocks: { upper: number; sum: number; n: number }[] = [];
  for (let i = 0; i < points.length;) {
    let j = i;
    let sum = 0;
    while (j < points.length && (points[j] as { p: number }).p === (points[i] as { p: number }).p) {
      sum += (points[j] as { y: number }).y;
      j++;
    }
    blocks.push({ upper: (points[i] as { p: number }).p, sum, n: j - i });
    i = j;
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1] as { upper: number; sum: number; n: number };
      const prev = blocks[blocks.length - 2] as { upper: number; sum: number; n: number };
      if (prev.sum / prev.n <= last.sum / last.n) break;
      blocks.splice(blocks.length - 2, 2, {
        upper: last.upper,
        sum: prev.sum + last.sum,
        n: prev.n + last.n,
      });
    }
  }
  return { x: blocks.map((b) => b.upper), y: blocks.map((b) => b.sum / b.n) };
}

function applyIsotonic(x: readonly number[], y: readonly number[], p: number): number {
  let lo = 0;
  let hi = x.length - 1;
  if (p >= (x[hi] as number)) return y[hi] as number;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((x[mid] as number) >= p) hi = mid;
    else lo = mid + 1;
  }
  return y[lo] as number;
}

/** Every recalibration method, by name. */
export const RECALIBRATION_REGISTRY: readonly RecalibrationDefinition[] = [
  {
    name: "temperature",
    description: "one temperature T minimising the gold labels' NLL (any question type)",
    yesNoOnly: false,
    fit: (items) => ({ temperature: fitTemperatureToLabels(items) ?? 1 }),
    apply: (params, predicted) => temper(predicted, num(params, "temperature")),
  },
  {
    name: "platt",
    description: "P'(yes) = σ(a·logit P(yes) + b), fitted by logistic regression (yes/no)",
    yesNoOnly: true,
    fit: (items) => fitPlatt(items),
    apply: (params, predicted) =>
      yesNo(sigmoid(num(params, "a") * logit(yesOf(predicted)) + num(params, "b"))),
  },
  {
    name: "isotonic",
    description: "the closest non-decreasing step function of P(yes), by pool-adjacent-violators",
    yesNoOnly: true,
    fit: (items) => fitIsotonic(items),
    apply: (params, predicted) =>
      yesNo(applyIsotonic(list(params, "x"), list(params, "y"), yesOf(predicted))),
  },
];

/**
 * The definition of a recalibration method.
 *
 * @param method The method's name.
 * @returns Its definition.
 * @throws {RangeError} When no method has that name.
 */
export function recalibrationMethod(method: string): RecalibrationDefinition {
  const found = RECALIBRATION_REGISTRY.find((d) => d.name === method);
  if (!found) {
    throw new RangeError(
      `Cannot recalibrate with "${method}": methods are ${RECALIBRATION_METHODS.join(", ")}`,
    );
  }
  return found;
}

/**
 * Fits a recalibration method on labelled distributions.
 *
 * @param method `temperature`, `platt` or `isotonic`.
 * @param items Labelled distributions (at least one).
 * @returns The fitted calibration.
 * @throws {RangeError} When the method is unknown or there is nothing to fit.
 * @throws {TypeError} When a yes/no method meets a distribution that is not `{true, false}`.
 * @example
 * ```ts
 * import { applyCalibration, fitCalibration } from "./recalibration.ts";
 * const items = [0.9, 0.9, 0.9, 0.1].map((p, i) => ({
 *   predicted: { true: p, false: 1 - p }, gold: i < 2 ? "true" : "false",
 * }));
 * const fitted = fitCalibration("isotonic", items);
 * applyCalibration(fitted, { true: 0.9, false: 0.1 }).true; // 2/3
 * ```
 */
export function fitCalibration(
  method: string,
  items: readonly LabelledDistribution[],
): FittedCalibration {
  const definition = recalibrationMethod(method);
  if (items.length === 0) {
    throw new RangeError(`Cannot fit "${method}" recalibration: no labelled items`);
  }
  return { method: definition.name, params: definition.fit(items), fitN: items.length };
}

/**
 * Applies a fitted calibration to one distribution.
 *
 * @param calibration From {@linkcode fitCalibration} (or read back from a file).
 * @param predicted The distribution.
 * @returns The recalibrated distribution, same keys.
 * @throws {RangeError} When the method is unknown.
 * @throws {TypeError} When a parameter is missing, or a yes/no method meets another distribution.
 */
export function applyCalibration(
  calibration: Pick<FittedCalibration, "method" | "params">,
  predicted: Readonly<Record<string, number>>,
): Record<string, number> {
  return recalibrationMethod(calibration.method).apply(calibration.params, predicted);
}

/** A figure with its percentile bootstrap interval. */
export interface FigureWithInterval {
  /** The value, null without items. */
  value: number | null;
  /** 95% percentile bootstrap interval over the items, null without items. */
  interval: [number, number] | null;
}

/** Before/after figures of one calibration on held-out items. */
export interface CalibrationFigures {
  /** Held-out items. */
  n: number;
  /** Top-label 10-bin ECE before and after. */
  ece: { before: FigureWithInterval; after: FigureWithInterval };
  /** Mean NLL of the gold label (probability floored at 1e-12) before and after. */
  nll: { before: FigureWithInterval; after: FigureWithInterval };
  /** Mean Brier score (Σ over options of (p − one-hot)²) before and after. */
  brier: { before: FigureWithInterval; after: FigureWithInterval };
  /** Reliability bins (top label, 10 equal-width, non-empty ones) before and after. */
  reliability: { before: ReliabilityBin[]; after: ReliabilityBin[] };
}

/** One bin of a reliability diagram. */
export interface ReliabilityBin {
  /** Lower edge of the bin's confidence range. */
  lower: number;
  /** Upper edge. */
  upper: number;
  /** Items in the bin. */
  n: number;
  /** Their mean top-label confidence. */
  meanConfidence: number;
  /** The share of them whose top label is the gold one. */
  accuracy: number;
}

function reliabilityOf(rows: readonly Scored[]): ReliabilityBin[] {
  return calibrationBins(rows, { bins: 10 }).map((b: CalibrationBin) => ({
    lower: b.lower,
    upper: b.upper,
    n: b.n,
    meanConfidence: b.confidenceSum / b.n,
    accuracy: b.correct / b.n,
  }));
}

/** Options of {@linkcode calibrationFigures}. */
export interface CalibrationFiguresOptions {
  /**
   * Bootstrap replicates (0: no intervals).
   * @default 200
   */
  replicates?: number;
  /**
   * Seed of the bootstrap draws.
   * @default 0
   */
  seed?: number;
}

interface Scored {
  confidence: number;
  correct: boolean;
  nll: number;
  brier: number;
}

function scored(predicted: Readonly<Record<string, number>>, gold: string): Scored {
  const top = topOf(predicted);
  let brier = 0;
  for (const key in predicted) {
    const p = predicted[key] as number;
    brier += (p - (key === gold ? 1 : 0)) ** 2;
  }
  return {
    confidence: top?.p ?? 0,
    correct: top?.key === gold,
    nll: -Math.log(Math.max(probabilityOf(predicted, gold), KL_FLOOR)),
    brier,
  };
}

function figuresOf(rows: readonly Scored[]): { ece: number; nll: number; brier: number } {
  let nll = 0;
  let brier = 0;
  for (const r of rows) {
    nll += r.nll;
    brier += r.brier;
  }
  return {
    ece: eceOfBins(calibrationBins(rows, { bins: 10 })) ?? 0,
    nll: nll / rows.length,
    brier: brier / rows.length,
  };
}

function percentile(sorted: readonly number[], q: number): number {
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (at - lo);
}

/**
 * Before/after figures of a calibration on held-out labelled items: ECE, NLL and Brier with 95%
 * percentile bootstrap intervals (items resampled with replacement, the same draws before and
 * after), and the reliability bins.
 *
 * @param calibration The fitted calibration, or a function giving each held-out item's calibrated
 *   distribution (e.g. a calibration per lane); null: none, after equals before.
 * @param heldOut Labelled distributions not used to fit it.
 * @param options Replicates and seed.
 * @returns The figures.
 */
export function calibrationFigures(
  calibration:
    | Pick<FittedCalibration, "method" | "params">
    | ((item: LabelledDistribution, index: number) => Readonly<Record<string, number>>)
    | null,
  heldOut: readonly LabelledDistribution[],
  options: CalibrationFiguresOptions = {},
): CalibrationFigures {
  const before = heldOut.map((item) => scored(item.predicted, item.gold));
  const after = calibration === null ? before : heldOut.map((item, index) =>
    scored(
      typeof calibration === "function"
        ? calibration(item, index)
        : applyCalibration(calibration, item.predicted),
      item.gold,
    )
  );
  const empty = { value: null, interval: null };
  if (heldOut.length === 0) {
    return {
      n: 0,
      ece: { before: empty, after: empty },
      nll: { before: empty, after: empty },
      brier: { before: empty, after: empty },
      reliability: { before: [], after: [] },
    };
  }
  const point = { before: figuresOf(before), after: figuresOf(after) };
  const replicates = options.replicates ?? 200;
  const random = seededRandom(options.seed ?? 0);
  const draws = {
    before: [] as { ece: number; nll: number; brier: number }[],
    after: [] as typeof point.before[],
  };
  for (let r = 0; r < replicates; r++) {
    const picks = Array.from(
      { length: heldOut.length },
      () => Math.floor(random() * heldOut.length),
    );
    draws.before.push(figuresOf(picks.map((i) => before[i] as Scored)));
    draws.after.push(figuresOf(picks.map((i) => after[i] as Scored)));
  }
  const figure = (
    side: "before" | "after",
    key: "ece" | "nll" | "brier",
  ): FigureWithInterval => {
    if (replicates === 0) return { value: point[side][key], interval: null };
    const sorted = draws[side].map((d) => d[key]).sort((a, b) => a - b);
    return {
      value: point[side][key],
      interval: [percentile(sorted, 0.025), percentile(sorted, 0.975)],
    };
  };
  return {
    n: heldOut.length,
    ece: { before: figure("before", "ece"), after: figure("after", "ece") },
    nll: { before: figure("before", "nll"), after: figure("after", "nll") },
    brier: { before: figure("before", "brier"), after: figure("after", "brier") },
    reliability: {
      before: reliabilityOf(before),
      after: reliabilityOf(after),
    },
  };
}
