/**
 * The report charts, drawn with Observable Plot on the server side into a linkedom document and
 * returned as SVG text: a reliability diagram, accuracy by group with interval error bars, a
 * confidence histogram and the risk–coverage curve. Only `report.html` and the view draw them, so
 * this folder is kept apart from `report` (whose entry point a run loads before its first
 * request): the charting libraries load only when a chart is drawn.
 *
 * @example
 * ```ts
 * import { confidenceHistogram } from "./mod.ts";
 * const svg = confidenceHistogram([{ confidence: 0.8, correct: true }]);
 * if (!svg.startsWith("<svg")) throw new Error("expected SVG");
 * ```
 *
 * @module
 */
export {
  accuracyChart,
  type ChartOptions,
  confidenceHistogram,
  type HistogramInput,
  OUTCOME_COLORS,
  reliabilityChart,
} from "./charts.ts";
export { riskCoverageChart } from "./risk_coverage.ts";
