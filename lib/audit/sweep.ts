/**
 * Threshold sweeps: for labelled yes/no items, every pass bar's agreement, false-pass and
 * false-fail rates, a bar chosen on one seeded half and scored on the other, with an exact upper
 * bound on the false-pass rate — per lane and overall. The bar is where the error preference is
 * written, so the whole curve is returned, not one number.
 *
 * @module
 */
import { shuffle } from "../metrics/mod.ts";
import { clopperPearsonUpper } from "./binomial.ts";
import { DEFAULT_GATE_THRESHOLD } from "./gate.ts";
import type { LabelledItem } from "./schemas.ts";

/** The lane name of all items together. */
export const OVERALL_LANE = "(overall)";

/** Rates of one bar on one set of items. */
export interface SweepMetrics {
  /** Items. */
  n: number;
  /** Items labelled yes (should pass). */
  positives: number;
  /** Items labelled no (should fail). */
  negatives: number;
  /** Share of items where pass (P(yes) ≥ bar) equals the label; null when n = 0. */
  agreement: number | null;
  /** No-labelled items that pass. */
  falsePasses: number;
  /** falsePasses / negatives; null when there are no negatives. */
  falsePassRate: number | null;
  /** One-sided exact (Clopper–Pearson) upper bound on the false-pass rate; null without negatives. */
  falsePassUpper: number | null;
  /** Yes-labelled items that fail. */
  falseFails: number;
  /** falseFails / positives; null when there are no positives. */
  falseFailRate: number | null;
}

/** One bar of the curve, on both halves. */
export interface CurvePoint {
  /** The bar: pass when P(yes) ≥ threshold. */
  threshold: number;
  /** On the half that chooses the bar. */
  select: SweepMetrics;
  /** On the held-out half that scores it. */
  score: SweepMetrics;
}

/** The sweep of one lane. */
export interface LaneSweep {
  /** Lane name (`workflow/question`, a user's lane, or {@linkcode OVERALL_LANE}). */
  lane: string;
  /** Items in the lane. */
  n: number;
  /** The bar that maximises agreement on the selection half (ties: the highest bar); null when that half is empty. */
  chosen: number | null;
  /** The chosen bar on the selection half (optimistic: it chose the bar). */
  selected: SweepMetrics | null;
  /** The chosen bar on the held-out half: the numbers to report. */
  heldOut: SweepMetrics | null;
  /** The default (uncalibrated) bar on the held-out half, for comparison. */
  atDefault: SweepMetrics;
  /** Every bar on both halves. */
  curve: CurvePoint[];
}

/** A threshold sweep. */
export interface SweepResult {
  /** Seed of the split. */
  seed: number;
  /** Confidence of the one-sided false-pass bound. */
  confidence: number;
  /** The default bar compared against. */
  defaultThreshold: number;
  /** The bars swept, ascending. */
  thresholds: number[];
  /** One sweep per lane, lanes sorted by name. */
  lanes: LaneSweep[];
  /** All lanes together (each lane split on its own, halves pooled). */
  overall: LaneSweep;
}

/** Options of {@linkcode thresholdSweep}. */
export interface ThresholdSweepOptions {
  /** Seed of the split into selection and held-out halves. @default 0 */
  seed?: number | undefined;
  /** Bars to sweep. @default 0, 0.01, …, 1 */
  thresholds?: readonly number[] | undefined;
  /** Bar reported beside the chosen one. @default 0.7 */
  defaultThreshold?: number | undefined;
  /** Confidence of the one-sided false-pass bound. @default 0.95 */
  confidence?: number | undefined;
}

/**
 * The default bars: 0 to 1 in steps of 0.01.
 *
 * @returns 101 bars, ascending (each computed as i/100).
 */
export function defaultThresholds(): number[] {
  return Array.from({ length: 101 }, (_, i) => i / 100);
}

/** Options of {@linkcode metricsAt}. */
export interface MetricsAtOptions {
  /** Confidence of the one-sided false-pass bound. @default 0.95 */
  confidence?: number | undefined;
}

/**
 * Rates of one bar over items.
 *
 * @param items Labelled items.
 * @param threshold Pass when `p_yes ≥ threshold`.
 * @param options Confidence of the false-pass bound.
 * @returns Counts and rates.
 * @example
 * ```ts
 * import { metricsAt } from "./sweep.ts";
 * const items = [
 *   { id: "a", lane: "l", p_yes: 0.9, label: true },
 *   { id: "b", lane: "l", p_yes: 0.8, label: false },
 *   { id: "c", lane: "l", p_yes: 0.2, label: false },
 *   { id: "d", lane: "l", p_yes: 0.6, label: true },
 * ];
 * const m = metricsAt(items, 0.7);
 * // a passes (right), b passes (false pass), c fails (right), d fails (false fail)
 * m.agreement; // 0.5
 * m.falsePassRate; // 0.5
 * ```
 */
export function metricsAt(
  items: readonly LabelledItem[],
  threshold: number,
  options: MetricsAtOptions = {},
): SweepMetrics {
  let positives = 0;
  let falsePasses = 0;
  let falseFails = 0;
  for (const item of items) {
    const pass = item.p_yes >= threshold;
    if (item.label) {
      positives++;
      if (!pass) falseFails++;
    } else if (pass) falsePasses++;
  }
  return metricsOfCounts({ n: items.length, positives, falsePasses, falseFails }, options);
}

/** The counts behind one bar's rates. */
export interface BarCounts {
  /** Labelled items. */
  n: number;
  /** Items labelled yes. */
  positives: number;
  /** Items labelled no that pass. */
  falsePasses: number;
  /** Items labelled yes that fail. */
  falseFails: number;
}

/**
 * Rates of one bar from its counts (what {@linkcode metricsAt} counts over items).
 *
 * @param counts The counts.
 * @param options Confidence of the false-pass bound.
 * @returns Counts and rates.
 */
export function metricsOfCounts(counts: BarCounts, options: MetricsAtOptions = {}): SweepMetrics {
  const confidence = options.confidence ?? 0.95;
  const { n, positives, falsePasses, falseFails } = counts;
  const negatives = n - positives;
  return {
    n,
    positives,
    negatives,
    agreement: n ? (n - falsePasses - falseFails) / n : null,
    falsePasses,
    falsePassRate: negatives ? falsePasses / negatives : null,
    falsePassUpper: clopperPearsonUpper(falsePasses, negatives, { confidence }),
    falseFails,
    falseFailRate: positives ? falseFails / positives : null,
  };
}

/**
 * Splits a lane's items into a selection half (the first ⌈n/2⌉ after a seeded shuffle of the
 * items sorted by id) and a held-out half. The split does not depend on input order.
 *
 * @param items One lane's items.
 * @param seed The seed.
 * @returns The two halves.
 */
export function splitHalves(
  items: readonly LabelledItem[],
  seed: number,
): { select: LabelledItem[]; score: LabelledItem[] } {
  const sorted = [...items].sort((a, b) =>
    a.id < b.id ? -1 : a.id > b.id ? 1 : a.p_yes - b.p_yes || Number(a.label) - Number(b.label)
  );
  const order = shuffle(sorted, seed);
  const half = Math.ceil(order.length / 2);
  return { select: order.slice(0, half), score: order.slice(half) };
}

function sweepLane(
  lane: string,
  halves: { select: LabelledItem[]; score: LabelledItem[] },
  thresholds: readonly number[],
  defaultThreshold: number,
  confidence: number,
): LaneSweep {
  const curve = thresholds.map((threshold) => ({
    threshold,
    select: metricsAt(halves.select, threshold, { confidence }),
    score: metricsAt(halves.score, threshold, { confidence }),
  }));
  let best: CurvePoint | null = null;
  if (halves.select.length) {
    for (const point of curve) {
      const agreeing = point.select.n - point.select.falsePasses - point.select.falseFails;
      const bestAgreeing = best
        ? best.select.n - best.select.falsePasses - best.select.falseFails
        : -1;
      // Ties go to the higher bar (fail-closed: never more false passes).
      if (
        agreeing > bestAgreeing ||
        (agreeing === bestAgreeing && best && point.threshold > best.threshold)
      ) {
        best = point;
      }
    }
  }
  return {
    lane,
    n: halves.select.length + halves.score.length,
    chosen: best ? best.threshold : null,
    selected: best ? best.select : null,
    heldOut: best ? best.score : null,
    atDefault: metricsAt(halves.score, defaultThreshold, { confidence }),
    curve,
  };
}

/**
 * Sweeps pass bars over labelled yes/no items. Each lane is split into halves with the seed; the
 * bar that maximises agreement on the selection half is chosen (a tie goes to the highest bar,
 * which never has more false passes) and scored on the held-out half. The overall sweep pools the
 * lanes' halves and chooses its own bar.
 *
 * @param items Labelled items (`p_yes` as returned, `label` true when the item should pass).
 * @param options Seed, bars, default bar, confidence.
 * @returns Per-lane and overall sweeps with their curves.
 * @throws {RangeError} When there are no items, a bar is outside [0, 1], or the seed is not an integer.
 * @example
 * ```ts
 * import { thresholdSweep } from "./sweep.ts";
 * const items = Array.from({ length: 40 }, (_, i) => ({
 *   id: `c${i}`, lane: "w/q", p_yes: i / 40, label: i >= 20,
 * }));
 * const sweep = thresholdSweep(items, { seed: 1 });
 * const lane = sweep.lanes[0];
 * lane?.chosen; // 0.55: the highest bar that separates the selection half
 * lane?.heldOut?.agreement; // 0.9: two held-out yes items sit below it
 * ```
 */
export function thresholdSweep(
  items: readonly LabelledItem[],
  options: ThresholdSweepOptions = {},
): SweepResult {
  if (items.length === 0) throw new RangeError("Cannot sweep thresholds: no labelled items");
  const seed = options.seed ?? 0;
  const confidence = options.confidence ?? 0.95;
  const defaultThreshold = options.defaultThreshold ?? DEFAULT_GATE_THRESHOLD;
  const thresholds = [...(options.thresholds ?? defaultThresholds())].sort((a, b) => a - b);
  for (const t of [...thresholds, defaultThreshold]) {
    if (!(t >= 0 && t <= 1)) {
      throw new RangeError(`Cannot sweep thresholds: bar "${t}" is not in [0, 1]`);
    }
  }
  if (thresholds.length === 0) throw new RangeError("Cannot sweep thresholds: no bars given");
  const byLane = new Map<string, LabelledItem[]>();
  for (const item of items) {
    const lane = byLane.get(item.lane);
    if (lane) lane.push(item);
    else byLane.set(item.lane, [item]);
  }
  const pooled = { select: [] as LabelledItem[], score: [] as LabelledItem[] };
  const lanes: LaneSweep[] = [];
  for (const lane of [...byLane.keys()].sort()) {
    const halves = splitHalves(byLane.get(lane) ?? [], seed);
    pooled.select.push(...halves.select);
    pooled.score.push(...halves.score);
    lanes.push(sweepLane(lane, halves, thresholds, defaultThreshold, confidence));
  }
  return {
    seed,
    confidence,
    defaultThreshold,
    thresholds,
    lanes,
    overall: sweepLane(OVERALL_LANE, pooled, thresholds, defaultThreshold, confidence),
  };
}

/** One flat curve row, for tables and charts. */
export interface CurveRow {
  /** Lane name. */
  lane: string;
  /** The bar. */
  threshold: number;
  /** Which half. */
  half: "select" | "score";
  /** Agreement, or null. */
  agreement: number | null;
  /** False-pass rate, or null. */
  falsePassRate: number | null;
  /** Upper bound on the false-pass rate, or null. */
  falsePassUpper: number | null;
  /** False-fail rate, or null. */
  falseFailRate: number | null;
}

/**
 * The curves of a sweep as flat rows (lanes, then overall; both halves), ready for a chart.
 *
 * @param sweep A sweep.
 * @returns One row per lane, bar and half.
 */
export function sweepCurveRows(sweep: SweepResult): CurveRow[] {
  const rows: CurveRow[] = [];
  for (const lane of [...sweep.lanes, sweep.overall]) {
    for (const point of lane.curve) {
      for (const half of ["select", "score"] as const) {
        const m = point[half];
        rows.push({
          lane: lane.lane,
          threshold: point.threshold,
          half,
          agreement: m.agreement,
          falsePassRate: m.falsePassRate,
          falsePassUpper: m.falsePassUpper,
          falseFailRate: m.falseFailRate,
        });
      }
    }
  }
  return rows;
}
