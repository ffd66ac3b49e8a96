/**
 * The terminal report: tables by type and workflow, reliability table, summary with rating,
 * latency, tokens and the dataset attribution.
 *
 * @module
 */
import { attribution } from "../dataset/mod.ts";
import { type BreakdownRow, COLUMN_METRICS, type Summary } from "../metrics/mod.ts";
import type { RunJson } from "../record/mod.ts";
import { decisionCounts, metricInterval, metricText, num, table } from "./format.ts";
import { errorKindData } from "./errors.ts";
import type { RunReport } from "./model.ts";
import { laneWord, protocolNote, runRating, thresholdName, thresholdVerdict } from "./protocol.ts";
import { breakdownData, clipName, reliabilityData } from "./tables.ts";
import { warningLines } from "./warnings.ts";
import { calibrationTerminal } from "./calibration.ts";
import { policyData } from "./policy.ts";
import { replicaData } from "./replicas.ts";
import { classesTerminal } from "./classes.ts";

/** Options for the table renderers. */
export interface ReportOptions {
  /** Markdown tables instead of text. @default false */
  markdown?: boolean | undefined;
}

/**
 * Rows of a breakdown table: group, n, the column metrics (accuracy with its interval), errors.
 *
 * @param rows Breakdown rows.
 * @param options Markdown or text.
 * @returns The table.
 */
export function breakdownTable(rows: readonly BreakdownRow[], options: ReportOptions = {}): string {
  const data = breakdownData(rows);
  if (options.markdown) return table(data.header, data.rows, { markdown: true });
  // A terminal shows a group's name cut to 40 characters; the files keep it whole.
  return table(data.header, data.rows.map(([group = "", ...rest]) => [clipName(group), ...rest]));
}

/**
 * The reliability table of a summary.
 *
 * @param summary The summary.
 * @param options Markdown or text.
 * @returns The table.
 */
export function reliabilityText(summary: Summary, options: ReportOptions = {}): string {
  const data = reliabilityData(summary);
  return table(data.header, data.rows, options.markdown ? { markdown: true } : {});
}

function errorLines(rows: RunReport["errors"]): string[] {
  const errors = errorKindData(rows);
  return errors.rows.length ? ["Errors by kind", table(errors.header, errors.rows), ""] : [];
}

function spaced(...parts: string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}

/** Columns a wrapped summary line keeps to. */
const WRAP_COLUMNS = 100;

/**
 * A long summary entry as lines of at most {@linkcode WRAP_COLUMNS} characters: the label on the
 * first, the rest indented under the text (a word longer than a line stays whole).
 */
function wrapped(label: string, text: string): string[] {
  const indent = " ".repeat(label.length);
  const lines: string[] = [];
  let line = label;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const start = line === label || line === indent;
    if (!start && line.length + 1 + word.length > WRAP_COLUMNS) {
      lines.push(line);
      line = indent + word;
    } else line = start ? line + word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/**
 * The summary block: status, rating, headline metrics with intervals, latency, tokens.
 *
 * @param run The run record.
 * @param summary Its summary.
 * @param askedCases Cases with a recorded decision (the others were never asked).
 * @returns Lines of text.
 */
export function summaryLines(
  run: RunJson,
  summary: Summary,
  askedCases: number = run.spec.cases,
): string[] {
  const lines = [
    // The stop message itself is printed once, after the report (bench) and kept in report.md.
    `status      ${run.status}${run.fatal ? " (stopped early)" : ""}`,
    `rating      ${runRating(run.spec, summary)}`,
    `decisions   ${decisionCounts(summary, { selected: run.spec.cases, asked: askedCases })}`,
    ...COLUMN_METRICS.map((m) =>
      `${(m.short ?? m.label).padEnd(11)} ${
        spaced(
          metricText(m, summary.metrics[m.name]),
          metricInterval(m, summary.intervals[m.name]),
          m.note ? `(${m.note})` : "",
        )
      }`
    ),
    `confidence  ${num(summary.meanConfidence)} mean top probability`,
    `latency     ${
      summary.latency
        ? `p50 ${summary.latency.p50.toFixed(1)} ms, p95 ${summary.latency.p95.toFixed(1)} ms`
        : "n/a"
    }`,
    `tokens      ${summary.inputTokens ?? "n/a"} input, 0 output`,
  ];
  if (!run.spec.calibrated) {
    lines.push(
      "calibration this engine's probabilities are uncalibrated: confidence thresholds do not transfer to calibrated engines",
    );
  }
  const note = protocolNote(run.spec);
  if (note !== null) lines.push(...wrapped("protocol    ", note));
  for (const t of run.thresholds) {
    lines.push(
      `threshold   ${
        thresholdName({
          ...t,
          question: t.question === undefined ? undefined : clipName(t.question),
          lane: t.lane === undefined ? undefined : clipName(t.lane),
        })
      } ${t.op} ${t.limit}: ${
        t.pass === null
          ? "" // not evaluated: no value to show
          : `${t.value === null ? "n/a" : num(t.value)}${
            t.estimate !== undefined
              ? ` (estimate ${t.estimate === null ? "n/a" : num(t.estimate)})`
              : ""
          } `
      }${thresholdVerdict(t)}`,
    );
  }
  return lines;
}

function policyLines(run: RunJson): string[] {
  const data = policyData(run.policy);
  return data === null ? [] : [
    "",
    ...wrapped("policy      ", data.intro),
    table(data.table.header, data.table.rows),
    ...wrapped("            ", data.note),
    "",
  ];
}

function replicaLines(run: RunJson): string[] {
  const data = replicaData(run);
  return data.rows.length ? ["", "Replicas", table(data.header, data.rows), ""] : [];
}

/**
 * The full terminal report of a run.
 *
 * @param report The run's report model (`buildReport`).
 * @returns The report text.
 */
export function terminalReport(report: RunReport): string {
  const { run, info, summary } = report;
  return [
    `decibench · ${clipName(run.spec.workflow)} · ${run.spec.endpoint} · model ${
      clipName(run.spec.model)
    }${
      run.model_reported && run.model_reported !== run.spec.model
        ? ` (answered by ${clipName(run.model_reported)})`
        : ""
    }`,
    "",
    "By question type",
    breakdownTable(report.byType),
    "",
    `By ${laneWord(run.spec)}`,
    breakdownTable(report.byWorkflow),
    "",
    ...classesTerminal(summary.classes),
    "Reliability (answered decisions)",
    reliabilityText(summary),
    "",
    ...errorLines(report.errors),
    ...summaryLines(run, summary, report.asked),
    ...policyLines(run),
    ...replicaLines(run),
    ...calibrationTerminal(report),
    ...warningLines(report.warnings).map((line) => `warning     ${line}`),
    "",
    `run         ${run.id}`,
    `data        ${attribution(info)}`,
  ].join("\n");
}
