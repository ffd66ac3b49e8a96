/**
 * What a run's page shows beyond run.json: the breakdowns by type, workflow (lane) and question
 * with their seeded intervals (the same seed, hence the same figures, as report.html) and the
 * report's charts, drawn by Observable Plot on the server as report.html draws them.
 *
 * @module
 */
import { breakdown, type BreakdownRow, reliabilityTable } from "../metrics/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import { accuracyChart, confidenceHistogram, reliabilityChart } from "../report/mod.ts";

/** A run's breakdowns and charts. */
export interface RunReport {
  /** By question type. */
  byType: BreakdownRow[];
  /** By workflow (lane). */
  byWorkflow: BreakdownRow[];
  /** By question (`workflow/question`). */
  byQuestion: BreakdownRow[];
  /** The charts as SVG text. */
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
  };
}

/**
 * Computes a run's breakdowns and draws its charts.
 *
 * @param run The run record (its spec's seed seeds the intervals).
 * @param records Its decisions.
 * @returns The breakdowns and charts (empty breakdowns when there are no decisions).
 */
export function runReport(run: RunJson, records: readonly DecisionRecord[]): RunReport {
  const seed = run.spec.seed;
  const byType = breakdown(records, "type", { seed });
  const byWorkflow = breakdown(records, "workflow", { seed });
  const byQuestion = breakdown(records, "question", { seed });
  const empty = records.length === 0;
  return {
    byType,
    byWorkflow,
    byQuestion,
    charts: {
      byWorkflow: empty ? "" : accuracyChart(byWorkflow),
      byType: empty ? "" : accuracyChart(byType),
      byQuestion: empty ? "" : accuracyChart(byQuestion, { width: 1000 }),
      reliability: empty ? "" : reliabilityChart(reliabilityTable(records)),
      histogram: empty ? "" : confidenceHistogram(records),
    },
  };
}
