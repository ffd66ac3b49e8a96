/**
 * The risk–coverage chart of `report.html`, drawn with Observable Plot: the error rate of the
 * most confident decisions kept, against the share kept, beside the perfect ranking and no
 * ranking at all.
 *
 * @module
 */
import { riskCoverage, type RiskCoveragePoint, type SelectiveInput } from "../metrics/mod.ts";
import { Plot, renderPlot } from "./_plot.ts";
import type { ChartOptions } from "./charts.ts";

const MODEL = "#4a7fb5";
const REFERENCE = "#888";

/** At most this many points per line: enough for a smooth curve, small enough to inline. */
const MAX_POINTS = 400;

function thin(points: readonly RiskCoveragePoint[]): RiskCoveragePoint[] {
  const step = Math.max(1, Math.ceil(points.length / MAX_POINTS));
  const out = points.filter((_, i) => i % step === 0);
  const last = points.at(-1);
  if (last && out.at(-1) !== last) out.push(last);
  return out;
}

/**
 * The risk–coverage curve of answered decisions: risk (wrong share among the kept decisions,
 * ties spread evenly) against coverage, with the perfect ranking (every wrong decision last) and
 * no ranking (the overall error rate) dashed, and the 50 % and 80 % coverage points marked.
 *
 * @param records Decisions (answered ones are drawn).
 * @param options Width.
 * @returns SVG text.
 */
export function riskCoverageChart(
  records: readonly SelectiveInput[],
  options: ChartOptions = {},
): string {
  const curve = riskCoverage(records);
  const n = curve.length;
  const wrong = n === 0 ? 0 : Math.round((curve[n - 1] as RiskCoveragePoint).risk * n);
  const right = n - wrong;
  const model = thin(curve).map((p) => ({ coverage: p.coverage, risk: p.risk, line: "model" }));
  const perfect = thin(curve).map((p) => ({
    coverage: p.coverage,
    risk: Math.max(0, p.kept - right) / p.kept,
    line: "perfect ranking",
  }));
  const marks = [0.5, 0.8].flatMap((c) => {
    const k = Math.max(1, Math.ceil(c * n - 1e-9));
    const p = curve[k - 1];
    return p
      ? [{
        coverage: c,
        risk: p.risk,
        label: `${c * 100}%: accuracy ${((1 - p.risk) * 100).toFixed(1)}%`,
      }]
      : [];
  });
  const overall = n === 0 ? 0 : wrong / n;
  return renderPlot({
    width: options.width ?? 640,
    height: 360,
    marginBottom: 40,
    x: {
      domain: [0, 1],
      label: "coverage (share of decisions answered, most confident first) →",
      tickFormat: "%",
    },
    y: {
      domain: [0, Math.max(0.05, overall * 1.25)],
      label: "↑ risk (wrong share of the answered)",
      grid: true,
    },
    color: { domain: ["model", "perfect ranking"], range: [MODEL, REFERENCE] },
    marks: [
      Plot.ruleY([overall], { stroke: REFERENCE, strokeDasharray: "2,3" }),
      Plot.text([{ y: overall }], {
        y: "y",
        text: () => "no ranking",
        frameAnchor: "left",
        dx: 4,
        dy: -6,
        fontSize: 9,
        fill: "#666",
      }),
      Plot.line(perfect, { x: "coverage", y: "risk", stroke: REFERENCE, strokeDasharray: "4,3" }),
      Plot.line(model, { x: "coverage", y: "risk", stroke: MODEL, strokeWidth: 2 }),
      Plot.dot(marks, { x: "coverage", y: "risk", fill: MODEL, r: 4 }),
      Plot.text(marks, { x: "coverage", y: "risk", text: "label", dy: -10, fontSize: 9 }),
      Plot.frame({ stroke: "#ccc" }),
    ],
  });
}
