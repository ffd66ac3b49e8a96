/**
 * Sweep tables: the chosen bar per lane with its held-out rates, and the curve behind it.
 *
 * @module
 */
import { num, pct, table } from "../report/mod.ts";
import type { LaneSweep, SweepMetrics, SweepResult } from "./sweep.ts";

/** Options of the sweep tables. */
export interface SweepTableOptions {
  /** Render Markdown instead of aligned text. @default false */
  markdown?: boolean | undefined;
}

function ratio(k: number, n: number): string {
  return n ? `${k}/${n}` : "–";
}

function rates(m: SweepMetrics | null): string[] {
  if (!m) return ["n/a", "–", "n/a", "n/a", "–", "n/a"];
  return [
    pct(m.agreement),
    ratio(m.falsePasses, m.negatives),
    pct(m.falsePassRate),
    pct(m.falsePassUpper),
    ratio(m.falseFails, m.positives),
    pct(m.falseFailRate),
  ];
}

/**
 * One row per lane (then overall): the bar chosen on the selection half and its held-out
 * agreement, false passes, false-pass rate with its one-sided exact upper bound, false fails;
 * then the default bar's held-out agreement and false-pass rate and bound.
 *
 * @param sweep A sweep.
 * @param options Markdown or text.
 * @returns The table.
 */
export function sweepTable(sweep: SweepResult, options: SweepTableOptions = {}): string {
  const level = Math.round(sweep.confidence * 100);
  const d = num(sweep.defaultThreshold, 2);
  const header = [
    "lane",
    "n sel/held",
    "bar",
    "agree",
    "false pass",
    "FP rate",
    `FP ≤ (${level}%)`,
    "false fail",
    "FF rate",
    `agree @${d}`,
    `FP rate @${d}`,
    `FP ≤ @${d}`,
  ];
  const rows = [...sweep.lanes, sweep.overall].map((lane) => {
    const held = lane.atDefault.n;
    return [
      lane.lane,
      `${lane.n - held}/${held}`,
      lane.chosen === null ? "n/a" : num(lane.chosen, 2),
      ...rates(lane.heldOut),
      pct(lane.atDefault.agreement),
      pct(lane.atDefault.falsePassRate),
      pct(lane.atDefault.falsePassUpper),
    ];
  });
  return table(header, rows, options.markdown ? { markdown: true } : {});
}

/** Options of {@linkcode curveTable}. */
export interface CurveTableOptions extends SweepTableOptions {
  /** Show every bar that is a multiple of this step. @default 0.1 */
  step?: number | undefined;
}

/**
 * A lane's curve: for each bar, agreement on both halves and the held-out false-pass (with its
 * bound) and false-fail rates. The chosen bar is marked `◀`.
 *
 * @param lane One lane of a sweep.
 * @param options Step and format.
 * @returns The table.
 */
export function curveTable(lane: LaneSweep, options: CurveTableOptions = {}): string {
  const step = options.step ?? 0.1;
  const onStep = (t: number) => Math.abs(t / step - Math.round(t / step)) < 1e-9;
  const rows = lane.curve
    .filter((p) => onStep(p.threshold) || p.threshold === lane.chosen)
    .map((p) => [
      `${num(p.threshold, 2)}${p.threshold === lane.chosen ? " ◀" : ""}`,
      pct(p.select.agreement),
      pct(p.score.agreement),
      pct(p.score.falsePassRate),
      pct(p.score.falsePassUpper),
      pct(p.score.falseFailRate),
    ]);
  return table(
    ["bar", "agree sel", "agree held", "FP held", "FP ≤ held", "FF held"],
    rows,
    options.markdown ? { markdown: true } : {},
  );
}
