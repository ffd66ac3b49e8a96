/**
 * The calibration section's tables as data (header and rows of text), shared by the terminal,
 * Markdown and HTML reports: every calibration measure with its estimator, the scorer profile,
 * the Murphy decomposition, the selective-prediction thresholds, the temperature what-if and the
 * stability under `--repeat`.
 *
 * @module
 */
import {
  coverageThresholds,
  metricByName,
  murphyDecomposition,
  riskCoverage,
  scorerProfile,
  type Summary,
  type TemperatureWhatIf,
  temperatureWhatIf,
} from "../metrics/mod.ts";
import type { DecisionRecord, RunStability } from "../record/mod.ts";
import { metricInterval, metricText, num, pct } from "./format.ts";
import type { RunReport } from "./model.ts";
import type { TableData } from "./tables.ts";

/** The measures of the calibration section, in report order. */
export const CALIBRATION_SECTION_METRICS: readonly string[] = [
  "ece_15",
  "ece_em",
  "ece_debiased",
  "ece_per_question",
  "mce",
  "brier_rel",
  "brier_res",
  "brier_unc",
  "aurc",
  "acc_at_50",
  "acc_at_80",
  "score_mae",
  "score_within_one",
];

/** Target coverages of the threshold table. */
export const COVERAGE_TARGETS: readonly number[] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/**
 * A metric's value from the summary (a report model's summary holds every registered metric,
 * those a run recorded by an older version lacks computed from its decisions).
 *
 * @param summary The run's summary.
 * @param name The metric name.
 * @returns The value (null when n/a or unknown).
 */
export function metricOf(summary: Summary, name: string): number | null {
  return summary.metrics[name] ?? null;
}

/**
 * Every calibration measure: value, its 95% bootstrap interval, and the estimator it names.
 *
 * @param report The run's report model.
 * @returns The table.
 */
export function calibrationMeasureData(report: RunReport): TableData {
  const rows: string[][] = [];
  for (const name of CALIBRATION_SECTION_METRICS) {
    const metric = metricByName(name);
    if (!metric) continue;
    rows.push([
      metric.label,
      name,
      metricText(metric, metricOf(report.summary, name)),
      metricInterval(metric, report.summary.intervals[name]),
      metric.description,
    ]);
  }
  return { header: ["measure", "name", "value", "95% CI", "estimator"], rows };
}

/**
 * The scorer profile: the four card metrics under each submitter convention.
 *
 * @param records The run's decisions.
 * @returns The table; decibench's headline conventions are marked.
 */
export function scorerProfileData(records: readonly DecisionRecord[]): TableData {
  return {
    header: ["metric", "convention", "value", ""],
    rows: scorerProfile(records).map((r) => [
      r.metric === "kl"
        ? "KL"
        : r.metric === "ece"
        ? "ECE"
        : r.metric === "brier"
        ? "Brier"
        : "accuracy",
      r.convention,
      r.metric === "accuracy" ? pct(r.value) : num(r.value, 4),
      r.decibench ? "decibench headline" : "",
    ]),
  };
}

/** The Murphy decomposition table and whether its groups are all single decisions. */
export interface MurphyData extends TableData {
  /** Decisions decomposed (answered yes/no). */
  n: number;
  /** Distinct forecast values. */
  groups: number;
}

/**
 * The Murphy decomposition of the yes/no label Brier score.
 *
 * @param records The run's decisions.
 * @returns The table (no rows when no yes/no decision is answered).
 */
export function murphyData(records: readonly DecisionRecord[]): MurphyData {
  const noul = records.filter((r) => r.type === "noul" && !r.error);
  const m = murphyDecomposition(noul);
  const header = ["component", "value"];
  if (m === null) return { header, rows: [], n: 0, groups: 0 };
  return {
    header,
    rows: [
      ["label Brier, mean (P(yes) − outcome)²", num(m.brier, 4)],
      ["reliability (brier_rel, lower is better)", num(m.reliability, 4)],
      ["resolution (brier_res, higher is better)", num(m.resolution, 4)],
      ["uncertainty (brier_unc)", num(m.uncertainty, 4)],
      ["rel − res + unc", num(m.reliability - m.resolution + m.uncertainty, 4)],
      ["share of yes labels", pct(m.baseRate)],
      ["decisions / distinct forecasts", `${m.n} / ${m.groups}`],
    ],
    n: m.n,
    groups: m.groups,
  };
}

/**
 * Confidence thresholds for 10 %, 20 %, … 100 % coverage, with the exact coverage and accuracy
 * of answering only at or above each.
 *
 * @param records The run's decisions.
 * @returns The table (no rows when nothing is answered).
 */
export function coverageData(records: readonly DecisionRecord[]): TableData {
  return {
    header: ["target coverage", "answer when confidence ≥", "kept", "coverage", "accuracy"],
    rows: coverageThresholds(riskCoverage(records), COVERAGE_TARGETS).map((r) => [
      pct(r.target),
      num(r.threshold, 4),
      String(r.kept),
      pct(r.coverage),
      pct(r.accuracy),
    ]),
  };
}

/** The temperature what-if table, with the split's sizes for the caption. */
export interface TemperatureData extends TableData {
  /** Distinct cases in a fitting half. */
  fitCases: number;
  /** Distinct cases in a held-out half. */
  heldOutCases: number;
}

/**
 * The temperature what-if per question and pooled.
 *
 * @param records The run's decisions.
 * @param seed Seed of the case split (the run's seed).
 * @returns The table, and the split's sizes for the caption.
 */
export function temperatureData(
  records: readonly DecisionRecord[],
  seed: number,
): TemperatureData {
  return temperatureRows(temperatureWhatIf(records, { seed }));
}

/**
 * The temperature what-if's table from its result.
 *
 * @param whatIf The what-if (`temperatureWhatIf`).
 * @returns The table, and the split's sizes for the caption.
 */
export function temperatureRows(whatIf: TemperatureWhatIf): TemperatureData {
  const row = (r: typeof whatIf.overall) => [
    r.key,
    r.temperature === null ? (r.key === "all" ? "per question" : "n/a") : num(r.temperature),
    String(r.n),
    num(r.eceBefore),
    num(r.eceAfter),
    num(r.nllBefore),
    num(r.nllAfter),
  ];
  return {
    header: ["question", "T", "held-out n", "ECE before", "ECE after", "NLL before", "NLL after"],
    rows: [...whatIf.questions.map(row), row(whatIf.overall)],
    fitCases: whatIf.fitCases,
    heldOutCases: whatIf.heldOutCases,
  };
}

/** The calibration section's tables computed from a run's decisions, for every renderer. */
export interface CalibrationTables {
  /** The Murphy decomposition ({@linkcode murphyData}). */
  murphy: MurphyData;
  /** The temperature what-if ({@linkcode temperatureData}). */
  temperature: TemperatureData;
  /** The scorer profile ({@linkcode scorerProfileData}). */
  profile: TableData;
  /** The confidence thresholds ({@linkcode coverageData}). */
  coverage: TableData;
}

/**
 * The calibration section's tables of a run's decisions (the reports compute them once per report
 * model and show the same ones).
 *
 * @param records The run's decisions.
 * @param seed The run's seed (the temperature what-if's split).
 * @returns The tables.
 */
export function calibrationTables(
  records: readonly DecisionRecord[],
  seed: number,
): CalibrationTables {
  return {
    murphy: murphyData(records),
    temperature: temperatureData(records, seed),
    profile: scorerProfileData(records),
    coverage: coverageData(records),
  };
}

function stabilityRow(r: RunStability["overall"]): string[] {
  return [
    r.key,
    String(r.decisions),
    String(r.repeats),
    r.flipRate === null ? "n/a" : `${pct(r.flipRate)} (${r.flipped})`,
    r.drift ? num(r.drift.median, 4) : "n/a",
    r.drift ? num(r.drift.p95, 4) : "n/a",
    r.drift ? num(r.drift.max, 4) : "n/a",
    String(r.errors),
  ];
}

const STABILITY_HEADER = [
  "group",
  "decisions",
  "repeats",
  "top answer flips",
  "drift median",
  "drift p95",
  "drift max",
  "errors",
];

/**
 * Stability overall and per concurrency.
 *
 * @param stability The run's `stability`.
 * @returns The table.
 */
export function stabilityData(stability: RunStability): TableData {
  return {
    header: STABILITY_HEADER,
    rows: [stability.overall, ...stability.byParallel].map(stabilityRow),
  };
}

/**
 * Stability per question.
 *
 * @param stability The run's `stability`.
 * @returns The table.
 */
export function stabilityQuestionData(stability: RunStability): TableData {
  return { header: STABILITY_HEADER, rows: stability.byQuestion.map(stabilityRow) };
}
