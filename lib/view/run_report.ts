/**
 * What a run's page shows beyond run.json: the report model of lib/report (the breakdowns by
 * type, workflow and question, computed once with the run's seed, so the figures equal
 * report.html's) and the report's charts, drawn by Observable Plot on the server as report.html
 * draws them.
 *
 * @module
 */
import { DATASET_URL, type DatasetInfo } from "../dataset/mod.ts";
import { type BreakdownRow, reliabilityTable } from "../metrics/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import {
  accuracyChart,
  confidenceHistogram,
  reliabilityChart,
  riskCoverageChart,
} from "../charts/mod.ts";
import { buildReport } from "../report/mod.ts";

/** A run's breakdowns (from the report model) and its charts. */
export interface RunPageReport {
  /** Breakdown by question type. */
  byType: BreakdownRow[];
  /** Breakdown by workflow (lane). */
  byWorkflow: BreakdownRow[];
  /** Breakdown by question (`workflow/question`). */
  byQuestion: BreakdownRow[];
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

/**
 * Computes a run's breakdowns through the report model and draws its charts.
 *
 * @param run The run record (its spec's seed seeds the intervals).
 * @param records Its decisions.
 * @returns The breakdowns and the charts.
 */
export function runPageReport(run: RunJson, records: readonly DecisionRecord[]): RunPageReport {
  const spec = run.spec;
  const info: DatasetInfo = {
    dataset: spec.dataset,
    revision: spec.revision,
    license: spec.license,
    split: spec.split === "train" ? "train" : "test",
    url: DATASET_URL,
    sha256: "",
    rows: spec.cases,
  };
  const report = buildReport(run, records, info);
  const empty = records.length === 0;
  return {
    byType: report.byType,
    byWorkflow: report.byWorkflow,
    byQuestion: report.byQuestion,
    charts: {
      byWorkflow: empty ? "" : accuracyChart(report.byWorkflow),
      byType: empty ? "" : accuracyChart(report.byType),
      byQuestion: empty ? "" : accuracyChart(report.byQuestion, { width: 1000 }),
      reliability: empty ? "" : reliabilityChart(reliabilityTable(records)),
      histogram: empty ? "" : confidenceHistogram(records),
      riskCoverage: empty ? "" : riskCoverageChart(records),
    },
  };
}
