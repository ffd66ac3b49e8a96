/**
 * What a temperature would fix: per question, one temperature fitted on a seeded half of the
 * cases and applied to the other half, with the ECE and NLL before and after. A what-if for the
 * report only; it never changes a run's scores.
 *
 * Definitions:
 * - Split, per question (`workflow/question`): the distinct cases with an answered decision of
 *   that question, in input order, are shuffled with the seed (Fisher–Yates, mulberry32); the
 *   first ⌊n/2⌋ are the fitting half, the rest the held-out half. Questions asked of the same
 *   cases (a workflow's five) therefore share one split, and every question is split in half.
 * - Tempering: q_i = max(p_i, 1e-12), then p_T(i) = q_i^(1/T) / Σ_j q_j^(1/T), over the predicted
 *   distribution (yes/no: `{true, false}`). T < 1 sharpens, T > 1 flattens; the ranking of the
 *   answers, so accuracy, does not change.
 * - Fit: T minimises the fitting half's NLL Σ −ln p_T(gold label), which is convex in 1/T; it is
 *   found by golden-section search over 1/T in [0.05, 20] (T in [0.05, 20]) to 1e-10.
 * - Before/after, on the held-out half: NLL = mean −ln max(p(gold label), 1e-12) (the `nll`
 *   metric) and top-label 10-bin ECE (the headline estimator); per question, and pooled over all
 *   held-out decisions with each question's own temperature.
 *
 * @module
 */
import { KL_FLOOR } from "./score.ts";
import { softmaxInPlace } from "./softmax.ts";
import { shuffle } from "./rng.ts";
import { calibrationBins, eceOfBins } from "./calibration.ts";
import { groupBy, probabilityOf, questionKey, topOf } from "./_distribution.ts";

/** The fields the what-if reads from a decision. */
export interface TemperatureInput {
  /** Case id: the unit the split draws. */
  case: string;
  /** Workflow of the case. */
  workflow?: string | undefined;
  /** Question name. */
  question?: string | undefined;
  /** The predicted distribution, null when not answered (left out). */
  predicted?: Readonly<Record<string, number>> | null | undefined;
  /** The gold label; null or absent: unlabelled, left out. */
  gold?: string | null | undefined;
  /** The failure, or null (absent) when answered. */
  error?: unknown;
}

/** A distribution and the label it is scored against. */
export interface LabelledDistribution {
  /** The predicted distribution. */
  predicted: Readonly<Record<string, number>>;
  /** The gold label. */
  gold: string;
}

/** Options of {@linkcode temperatureWhatIf}. */
export interface TemperatureOptions {
  /**
   * Seed of the case split.
   *
   * @default {0}
   */
  seed?: number;
}

/** Before/after figures of one question (or of all held-out decisions). */
export interface TemperatureRow {
  /** `workflow/question`, or `all` for the pooled row. */
  key: string;
  /** The fitted temperature; null for the pooled row or when nothing was there to fit. */
  temperature: number | null;
  /** Decisions the temperature was fitted on. */
  fitted: number;
  /** Held-out decisions the figures are over. */
  n: number;
  /** Held-out top-label 10-bin ECE with the predicted distributions. */
  eceBefore: number | null;
  /** Held-out ECE after tempering. */
  eceAfter: number | null;
  /** Held-out mean NLL of the gold label with the predicted distributions. */
  nllBefore: number | null;
  /** Held-out mean NLL after tempering. */
  nllAfter: number | null;
}

/** The temperature what-if of a run. */
export interface TemperatureWhatIf {
  /** Seed of the case split. */
  seed: number;
  /** Distinct cases in a fitting half. */
  fitCases: number;
  /** Distinct cases in a held-out half. */
  heldOutCases: number;
  /** One row per question with answered decisions, in order of first appearance. */
  questions: TemperatureRow[];
  /** Pooled over every held-out decision, each question tempered with its own temperature. */
  overall: TemperatureRow;
}

const BETA_MIN = 0.05;
const BETA_MAX = 20;

/**
 * A distribution tempered by T: max(p, 1e-12)^(1/T), renormalised, keys in the same order.
 *
 * @param predicted The distribution.
 * @param temperature T > 0.
 * @returns The tempered distribution.
 * @throws {RangeError} When `temperature` is not a positive finite number.
 */
export function temper(
  predicted: Readonly<Record<string, number>>,
  temperature: number,
): Record<string, number> {
  if (!(temperature > 0 && Number.isFinite(temperature))) {
    throw new RangeError(
      `Cannot temper a distribution: temperature "${temperature}" is not positive`,
    );
  }
  const { keys, values } = tempered(predicted, temperature);
  const out: Record<string, number> = {};
  keys.forEach((k, i) => (out[k] = values[i] as number));
  return out;
}

/**
 * The tempered probabilities of `predicted`'s keys, in key order, for a valid temperature:
 * q_i = β·ln max(p_i, 1e-12), then exp(q_i − max q) / Σ_j exp(q_j − max q), summed in key order.
 */
function tempered(
  predicted: Readonly<Record<string, number>>,
  temperature: number,
): { keys: string[]; values: Float64Array } {
  const beta = 1 / temperature;
  const keys = Object.keys(predicted);
  const values = new Float64Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    values[i] = beta * Math.log(Math.max(predicted[keys[i] as string] as number, KL_FLOOR));
  }
  // Temperature 1 there: the logits are scaled by β here (β·l, not l/T: the same bits as before).
  return { keys, values: softmaxInPlace(values) };
}

/**
 * Σ −ln p_β(label) over items, p_β ∝ max(p, 1e-12)^β: item i's log-probabilities are
 * `logs[start[i]]` to `logs[start[i + 1]]`, its label's at `labels[i]`.
 */
function nllAt(
  items: { logs: Float64Array; start: Int32Array; labels: Int32Array },
  beta: number,
): number {
  const { logs, start, labels } = items;
  let sum = 0;
  for (let i = 0; i < labels.length; i++) {
    const from = start[i] as number;
    const to = start[i + 1] as number;
    let max = -Infinity;
    for (let j = from; j < to; j++) {
      const v = beta * (logs[j] as number);
      if (v > max) max = v;
    }
    let total = 0;
    for (let j = from; j < to; j++) total += Math.exp(beta * (logs[j] as number) - max);
    sum += max + Math.log(total) - beta * (logs[labels[i] as number] as number);
  }
  return sum;
}

/**
 * The temperature that minimises the NLL of the gold labels (golden-section search over 1/T in
 * [0.05, 20]).
 *
 * @param items Distributions with their gold labels.
 * @returns T, or null when there is nothing to fit.
 * @example
 * ```ts
 * import { fitTemperatureToLabels } from "./temperature.ts";
 * // 0.9 on "a" when "a" is right 3 times in 4: the best tempered p(a) is 0.75, T = ln 9 / ln 3
 * const p = { a: 0.9, b: 0.1 };
 * const t = fitTemperatureToLabels(["a", "a", "a", "b"].map((gold) => ({ predicted: p, gold })))!;
 * if (Math.abs(t - 2) > 1e-6) throw new Error(`T ${t}`);
 * ```
 */
export function fitTemperatureToLabels(items: readonly LabelledDistribution[]): number | null {
  const logs: number[] = [];
  const start: number[] = [0];
  const labels: number[] = [];
  for (const { predicted, gold } of items) {
    const keys = Object.keys(predicted);
    const label = keys.indexOf(gold);
    if (label < 0) continue;
    labels.push(logs.length + label);
    for (const k of keys) logs.push(Math.log(Math.max(predicted[k] as number, KL_FLOOR)));
    start.push(logs.length);
  }
  if (labels.length === 0) return null;
  const prepared = {
    logs: Float64Array.from(logs),
    start: Int32Array.from(start),
    labels: Int32Array.from(labels),
  };
  const ratio = (Math.sqrt(5) - 1) / 2;
  let a = BETA_MIN;
  let b = BETA_MAX;
  let c = b - ratio * (b - a);
  let d = a + ratio * (b - a);
  let fc = nllAt(prepared, c);
  let fd = nllAt(prepared, d);
  while (b - a > 1e-10) {
    if (fc <= fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - ratio * (b - a);
      fc = nllAt(prepared, c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + ratio * (b - a);
      fd = nllAt(prepared, d);
    }
  }
  return 1 / ((a + b) / 2);
}

/** The NLL of one answered decision, and its top-label confidence and correctness. */
function scoreOf(predicted: Readonly<Record<string, number>>, gold: string) {
  const top = topOf(predicted);
  return {
    nll: -Math.log(Math.max(probabilityOf(predicted, gold), KL_FLOOR)),
    confidence: top?.p ?? null,
    correct: top?.key === gold,
  };
}

/**
 * `scoreOf(temper(predicted, temperature), gold)` without building the tempered distribution:
 * the same numbers.
 */
function temperedScore(
  predicted: Readonly<Record<string, number>>,
  gold: string,
  temperature: number,
): ReturnType<typeof scoreOf> {
  if (!(temperature > 0 && Number.isFinite(temperature))) temper(predicted, temperature);
  const { keys, values } = tempered(predicted, temperature);
  let top = -1;
  let goldP = 0;
  for (let i = 0; i < keys.length; i++) {
    const p = values[i] as number;
    if (top < 0 || p > (values[top] as number)) top = i;
    if (keys[i] === gold) goldP = p;
  }
  return {
    nll: -Math.log(Math.max(goldP, KL_FLOOR)),
    confidence: top < 0 ? null : values[top] as number,
    correct: top >= 0 && keys[top] === gold,
  };
}

function figures(
  items: readonly LabelledDistribution[],
  temperatureOf: (index: number) => number | null,
): Pick<TemperatureRow, "eceBefore" | "eceAfter" | "nllBefore" | "nllAfter"> {
  const before = items.map((x) => scoreOf(x.predicted, x.gold));
  const after = items.map((x, i) => {
    const t = temperatureOf(i);
    return t === null ? scoreOf(x.predicted, x.gold) : temperedScore(x.predicted, x.gold, t);
  });
  const meanNll = (scores: readonly { nll: number }[]) =>
    scores.length === 0 ? null : scores.reduce((s, x) => s + x.nll, 0) / scores.length;
  return {
    eceBefore: eceOfBins(calibrationBins(before)),
    eceAfter: eceOfBins(calibrationBins(after)),
    nllBefore: meanNll(before),
    nllAfter: meanNll(after),
  };
}

/**
 * The temperature what-if: per question, T fitted on a seeded half of the cases, ECE and NLL
 * before and after on the other half (see the module doc for every definition).
 *
 * @param decisions Scored decisions; unanswered ones are left out.
 * @param options The split's seed.
 * @returns Per-question rows and the pooled row.
 * @throws {RangeError} When `seed` is not a safe integer.
 */
export function temperatureWhatIf(
  decisions: readonly TemperatureInput[],
  options: TemperatureOptions = {},
): TemperatureWhatIf {
  const seed = options.seed ?? 0;
  const answered = decisions.filter((d) =>
    (d.error === null || d.error === undefined) && d.predicted && d.gold !== undefined &&
    d.gold !== null
  );
  const fitCases = new Set<string>();
  const heldCases = new Set<string>();
  const rows: TemperatureRow[] = [];
  const pooled: LabelledDistribution[] = [];
  const pooledTemperatures: (number | null)[] = [];
  for (const [key, group] of groupBy(answered, questionKey)) {
    const order = shuffle([...new Set(group.map((d) => d.case))], seed);
    const fitSet = new Set(order.slice(0, Math.floor(order.length / 2)));
    for (const c of order) (fitSet.has(c) ? fitCases : heldCases).add(c);
    const items = group.map((d) => ({
      case: d.case,
      predicted: d.predicted as Readonly<Record<string, number>>,
      gold: d.gold as string,
    }));
    const fit = items.filter((x) => fitSet.has(x.case));
    const held = items.filter((x) => !fitSet.has(x.case));
    const temperature = fitTemperatureToLabels(fit);
    rows.push({
      key,
      temperature,
      fitted: fit.length,
      n: held.length,
      ...figures(held, () => temperature),
    });
    for (const x of held) {
      pooled.push(x);
      pooledTemperatures.push(temperature);
    }
  }
  return {
    seed,
    fitCases: fitCases.size,
    heldOutCases: heldCases.size,
    questions: rows,
    overall: {
      key: "all",
      temperature: null,
      fitted: rows.reduce((n, r) => n + r.fitted, 0),
      n: pooled.length,
      ...figures(pooled, (i) => pooledTemperatures[i] ?? null),
    },
  };
}
