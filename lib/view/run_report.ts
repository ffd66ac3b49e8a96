/**
 * What a run's page shows beyond run.json: the breakdowns by type, workflow and question (the
 * metrics accumulator the run itself feeds, with the run's seed, so the figures equal
 * report.html's) and the report's charts, drawn by Observable Plot on the server as report.html
 * draws them. The decisions are streamed once: what is held is the accumulator and, for the
 * charts, each decision's confidence and outcome.
 *
 * @module
 */
import { type BreakdownRow, MetricsAccumulator, reliabilityTable } from "../metrics/mod.ts";
import type { DecisionRecord, RunJson, RunPolicy } from "../record/mod.ts";
import type { RunReport } from "../report/mod.ts";
import {
  accuracyChart,
  confidenceHistogram,
  reliabilityChart,
  riskCoverageChart,
} from "../charts/mod.ts";

/** A run's breakdowns (from the report model) and its charts. */
export interface RunPageReport {
  /** Breakdown by question type. */
  byType: BreakdownRow[];
  /** Breakdown by workflow (lane). */
  byWorkflow: BreakdownRow[];
  /** Breakdown by question (`workflow/question`). */
  byQuestion: BreakdownRow[];
  /** The decision policy applied to the run's answers (`bench --policy`), absent without one. */
  policy?: RunPolicy | undefined;
  /**
   * The answered, labelled decisions the confidence histogram and the risk–coverage chart draw
   * (an unlabelled decision is neither right nor wrong).
   */
  charted: number;
  /** The charts as SVG text ("" when the run has no decisions). */
  charts: {
    /** Accuracy by workflow. */
    byWorkflow: string;
    /** Accuracy by question type. */
    byType: string;
    /** Accuracy by question. */
    byQuestion: string;
    /** Reliability diagram. */
    reliability: string;
    /** Confidence histogram. */
    histogram: string;
    /** Risk–coverage curve (selective prediction). */
    riskCoverage: string;
  };
}

/** What the charts read of a decision. */
interface ChartPoint {
  confidence: number | null;
  correct: boolean;
  error: DecisionRecord["error"];
}

/**
 * Computes a run's breakdowns and draws its charts from its decisions, read once as a stream.
 *
 * @param run The run record (its spec's seed seeds the intervals).
 * @param decisions Its decisions, in any order (a case's decisions together).
 * @returns The breakdowns and the charts.
 */
export async function runPageReport(
  run: RunJson,
  decisions: AsyncIterable<DecisionRecord> | Iterable<DecisionRecord>,
): Promise<RunPageReport> {
  // The summary's own intervals are not shown here (run.json holds them): only the breakdowns'.
  const acc = new MetricsAccumulator({ seed: run.spec.seed, intervalMetrics: [] });
  const points: ChartPoint[] = [];
  // Where each row first appears in case order (the report model lists rows so), whatever order
  // the cases were answered in.
  const first = new Map<string, { case: string; at: number }>();
  const seen = (key: string, r: DecisionRecord, at: number) => {
    const had = first.get(key);
    if (had === undefined || r.case < had.case) first.set(key, { case: r.case, at });
  };
  let group: DecisionRecord[] = [];
  for await (const r of decisions) {
    // The charts are over labelled decisions: an unlabelled one (no gold) is neither right nor wrong.
    if (r.gold !== null && r.correct !== null) {
      points.push({ confidence: r.confidence, correct: r.correct, error: r.error });
    }
    if (group.length > 0 && group[0]?.case !== r.case) {
      acc.addCase(group[0]?.case ?? "", group);
      group = [];
    }
    seen(`type\u0000${r.type}`, r, group.length);
    seen(`workflow\u0000${r.workflow}`, r, group.length);
    seen(`question\u0000${r.workflow}/${r.question}`, r, group.length);
    group.push(r);
  }
  if (group.length > 0) acc.addCase(group[0]?.case ?? "", group);
  const rows = acc.breakdowns();
  const ordered = (by: string, list: BreakdownRow[]) =>
    list.map((row) => ({ row, place: first.get(`${by}\u0000${row.key}`) })).sort((a, b) => {
      const x = a.place;
      const y = b.place;
      if (x === undefined || y === undefined) return 0;
      return x.case < y.case ? -1 : x.case > y.case ? 1 : x.at - y.at;
    }).map(({ row }) => row);
  return pageReport({
    byType: ordered("type", rows.byType),
    byWorkflow: ordered("workflow", rows.byWorkflow),
    byQuestion: ordered("question", rows.byQuestion),
    points,
    policy: run.policy,
  }, run.spec.question_set === undefined);
}

/**
 * The run page's breakdowns and charts from a run's report model (`report.json`, written once when
 * the run ended): nothing is recomputed and no decision is read.
 *
 * @param report The run's report model (`loadRunReport`).
 * @returns The breakdowns and the charts' SVG text.
 */
export function runPageReportOf(report: RunReport): RunPageReport {
  return pageReport(
    { ...report, policy: report.run.policy },
    report.run.spec.question_set === undefined,
  );
}

/**
 * The page's breakdowns as given, and its charts drawn from them and from the points; the card's
 * reference lines (prior, teacher) only for a card-protocol run.
 */
function pageReport(
  report: Pick<RunReport, "byType" | "byWorkflow" | "byQuestion"> & {
    points: readonly ChartPoint[] | RunReport["points"];
    policy?: RunPolicy | undefined;
  },
  cardProtocol: boolean,
): RunPageReport {
  const { byType, byWorkflow, byQuestion, points, policy } = report;
  const empty = points.length === 0;
  const referencePoints = cardProtocol;
  return {
    byType,
    byWorkflow,
    byQuestion,
    ...(policy !== undefined ? { policy } : {}),
    charted: points.filter((p) => p.confidence !== null).length,
    charts: {
      byWorkflow: empty ? "" : accuracyChart(byWorkflow, { referencePoints }),
      byType: empty ? "" : accuracyChart(byType, { referencePoints }),
      byQuestion: empty ? "" : accuracyChart(byQuestion, { width: 1000, referencePoints }),
      reliability: empty ? "" : reliabilityChart(reliabilityTable(points)),
      histogram: empty ? "" : confidenceHistogram(points),
      riskCoverage: empty ? "" : riskCoverageChart(points),
    },
  };
}
