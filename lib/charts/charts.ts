/**
 * The report's charts, drawn with Observable Plot on the server side: Plot renders into a
 * linkedom document and each chart is returned as its SVG text, ready to inline in `report.html`
 * (no script, no network load).
 *
 * @module
 */
import type * as PlotTypes from "@observablehq/plot";
import { Plot, renderPlot } from "./_plot.ts";
import {
  type BreakdownRow,
  PRIOR_ACCURACY,
  type ReliabilityRow,
  TEACHER_AGREEMENT,
} from "../metrics/mod.ts";

/** Options shared by the chart functions. */
export interface ChartOptions {
  /** Width of the SVG in pixels. @default 640 */
  width?: number | undefined;
  /**
   * Draw the dataset card's reference points (accuracy charts); off for a run that is not the card
   * protocol, where they mean nothing.
   * @default true
   */
  referencePoints?: boolean | undefined;
}

/**
 * Colours for correct and wrong answers: blue and orange from Okabe & Ito's palette, told apart
 * with every common form of colour blindness (unlike green against red).
 */
export const OUTCOME_COLORS: Readonly<{ correct: string; wrong: string }> = {
  correct: "#0072b2",
  wrong: "#e69f00",
};
const BAR = "#4a7fb5";
/** Largest dot radius of the reliability diagram, in px. */
const DOT_MAX = 14;

/** Font size of every chart text, tick labels included, in px. */
const FONT_SIZE = 12;
/** Font size of labels drawn on the marks (values, `n=`), in px. */
const LABEL_SIZE = 11;

function render(options: PlotTypes.PlotOptions): string {
  // Plot draws at 10 px by default; the inline style sets every text, ticks included.
  return renderPlot({ ...options, style: { fontSize: `${FONT_SIZE}px` } });
}

/**
 * A reliability diagram: per confidence bin, the accuracy (bar over the bin) and the mean
 * confidence against accuracy (dot sized by the number of decisions), with the diagonal of perfect
 * calibration. Each bin's `n=` label sits above the plot area, which is inset at the top by more
 * than the largest dot's radius, so no label covers a dot.
 *
 * @param rows The reliability table (non-empty bins).
 * @param options Width.
 * @returns SVG text.
 */
export function reliabilityChart(
  rows: readonly ReliabilityRow[],
  options: ChartOptions = {},
): string {
  const data = rows.map((r) => ({ ...r, label: `n=${r.n}` }));
  return render({
    width: options.width ?? 640,
    height: 440,
    marginTop: 36,
    marginBottom: 40,
    x: { domain: [0, 1], label: "confidence (top probability) →", tickFormat: ".1f" },
    y: {
      domain: [0, 1],
      label: "↑ accuracy",
      tickFormat: ".1f",
      grid: true,
      insetTop: DOT_MAX + 2,
    },
    r: { range: [3, DOT_MAX] },
    marks: [
      Plot.rect(data, {
        x1: "lower",
        x2: "upper",
        y1: 0,
        y2: "accuracy",
        fill: BAR,
        fillOpacity: 0.35,
        inset: 1,
      }),
      Plot.link([{ x1: 0, y1: 0, x2: 1, y2: 1 }], {
        x1: "x1",
        y1: "y1",
        x2: "x2",
        y2: "y2",
        stroke: "#777",
        strokeDasharray: "4,3",
      }),
      Plot.dot(data, {
        x: "meanConfidence",
        y: "accuracy",
        r: "n",
        fill: BAR,
        stroke: "white",
        title: (d: ReliabilityRow) =>
          `${d.lower.toFixed(1)}–${d.upper.toFixed(1)}: n=${d.n}, mean confidence ${
            d.meanConfidence.toFixed(3)
          }, accuracy ${d.accuracy.toFixed(3)}`,
      }),
      Plot.text(data, {
        x: (d: ReliabilityRow) => (d.lower + d.upper) / 2,
        text: "label",
        frameAnchor: "top",
        dy: -8,
        fontSize: LABEL_SIZE,
      }),
      Plot.frame({ stroke: "#ccc" }),
    ],
  });
}

/**
 * Accuracy by group (workflow, question type or question) as horizontal bars with their 95%
 * bootstrap intervals as error bars, and the dataset card's reference points (prior 47.0%,
 * teacher self-agreement 73.5%) as dashed lines.
 *
 * @param rows Breakdown rows.
 * @param options Width.
 * @returns SVG text.
 */
export function accuracyChart(rows: readonly BreakdownRow[], options: ChartOptions = {}): string {
  const data = rows.map((r) => ({
    key: r.key,
    accuracy: r.metrics.accuracy ?? 0,
    lo: r.intervals.accuracy?.[0] ?? null,
    hi: r.intervals.accuracy?.[1] ?? null,
    n: r.decisions,
  }));
  type Row = (typeof data)[number];
  const longest = Math.max(...data.map((d) => d.key.length), 4);
  const pctText = (v: number) => `${(v * 100).toFixed(1)}%`;
  return render({
    width: options.width ?? 640,
    height: 50 + 26 * data.length,
    marginLeft: Math.min(360, 12 + longest * FONT_SIZE * 0.62),
    marginRight: 64,
    x: { domain: [0, 1], label: "accuracy →", tickFormat: "%", grid: true },
    y: { domain: data.map((d) => d.key), label: null },
    marks: [
      Plot.barX(data, {
        y: "key",
        x: "accuracy",
        fill: BAR,
        fillOpacity: 0.8,
        insetTop: 4,
        insetBottom: 4,
      }),
      Plot.ruleY(data.filter((d) => d.lo !== null), {
        y: "key",
        x1: "lo",
        x2: "hi",
        stroke: "#222",
        strokeWidth: 1.5,
      }),
      Plot.tickX(data.filter((d) => d.lo !== null), {
        y: "key",
        x: "lo",
        stroke: "#222",
        insetTop: 7,
        insetBottom: 7,
      }),
      Plot.tickX(data.filter((d) => d.lo !== null), {
        y: "key",
        x: "hi",
        stroke: "#222",
        insetTop: 7,
        insetBottom: 7,
      }),
      Plot.text(data, {
        y: "key",
        x: (d: Row) => Math.max(d.accuracy, d.hi ?? 0),
        text: (d: Row) => pctText(d.accuracy),
        textAnchor: "start",
        dx: 4,
        fontSize: LABEL_SIZE,
      }),
      ...(options.referencePoints === false ? [] : [
        Plot.ruleX([PRIOR_ACCURACY, TEACHER_AGREEMENT], { stroke: "#999", strokeDasharray: "3,3" }),
        Plot.text(
          [
            { x: PRIOR_ACCURACY, label: "prior" },
            { x: TEACHER_AGREEMENT, label: "teacher" },
          ],
          { x: "x", text: "label", frameAnchor: "top", dy: -8, fontSize: LABEL_SIZE, fill: "#555" },
        ),
      ]),
    ],
  });
}

/** A count on an axis: `500`, `1.5k`, `12k` (at most five characters below a million). */
function countTick(n: number): string {
  return n >= 1000 ? `${Number((n / 1000).toFixed(1))}k` : String(n);
}

/** The fields the confidence histogram reads from a decision. */
export interface HistogramInput {
  /** Top-label confidence, null when the decision errored. */
  confidence: number | null;
  /** Whether the predicted answer matched gold. */
  correct: boolean;
}

/**
 * A histogram of top-label confidence over answered decisions, in 20 bins of 0.05, stacked by
 * whether the decision was correct (blue) or wrong (orange): {@linkcode OUTCOME_COLORS}.
 *
 * @param records Decisions.
 * @param options Width.
 * @returns SVG text.
 */
export function confidenceHistogram(
  records: readonly HistogramInput[],
  options: ChartOptions = {},
): string {
  const data = records
    .filter((r) => r.confidence !== null)
    .map((r) => ({
      confidence: Math.min(r.confidence as number, 0.999999),
      outcome: r.correct ? "correct" : "wrong",
    }));
  return render({
    width: options.width ?? 640,
    height: 300,
    x: { domain: [0, 1], label: "confidence (top probability) →", tickFormat: ".1f" },
    // Thousands as "1.5k", "12k" fit the left margin, where "5,000" was clipped to ",000".
    marginLeft: 48,
    y: { label: "↑ decisions", grid: true, tickFormat: countTick },
    color: {
      domain: ["correct", "wrong"],
      range: [OUTCOME_COLORS.correct, OUTCOME_COLORS.wrong],
    },
    marks: [
      Plot.rectY(
        data,
        Plot.binX<PlotTypes.RectYOptions>({ y: "count" }, {
          x: "confidence",
          fill: "outcome",
          thresholds: Array.from({ length: 21 }, (_, i) => i / 20),
          inset: 0.5,
        }),
      ),
      Plot.ruleY([0]),
    ],
  });
}
