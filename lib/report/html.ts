/**
 * `report.html`: one self-contained page (inline CSS and SVG; no script and no network load) with
 * the headline, a reliability diagram, accuracy by workflow / type / question with interval error
 * bars, a confidence histogram, the tables of `report.md` and the dataset attribution.
 *
 * @module
 */
import {
  breakdownData,
  disagreementData,
  headlineData,
  reliabilityData,
  type TableData,
  thresholdData,
} from "./tables.ts";
import { errorKindData } from "./errors.ts";
import { attribution } from "../dataset/mod.ts";
import { COLUMN_METRICS } from "../metrics/mod.ts";
import {
  accuracyChart,
  confidenceHistogram,
  OUTCOME_COLORS,
  reliabilityChart,
  riskCoverageChart,
} from "../charts/mod.ts";
import { metricInterval, metricText, num, numericColumns } from "./format.ts";
import { laneWord, protocolNote, runRating } from "./protocol.ts";
import type { RunReport } from "./model.ts";
import { calibrationHtml } from "./calibration.ts";
import { policyData } from "./policy.ts";
import { replicaData } from "./replicas.ts";
import { classesHtml } from "./classes.ts";

/** Options for `htmlReport`. */
export interface HtmlOptions {
  /** How many confident disagreements to list. @default 20 */
  disagreements?: number | undefined;
}

/**
 * Escapes text for HTML content and attribute values.
 *
 * @param text The text.
 * @returns The escaped text.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function htmlTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  // Numbers align right, text left.
  const numeric = new Set(numericColumns(rows));
  const cls = (i: number) => numeric.has(i) ? ' class="n"' : "";
  const head = header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join("");
  const body = rows.map((r) =>
    `<tr>${r.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join("")}</tr>`
  ).join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** "8370 labelled (630 unlabelled), " when some decisions have no gold, else nothing. */
function unlabelledNote(summary: { decisions: number; labelled?: number | undefined }): string {
  const labelled = summary.labelled ?? summary.decisions;
  return labelled < summary.decisions
    ? `${labelled} labelled (${summary.decisions - labelled} unlabelled), `
    : "";
}

function htmlData(data: TableData): string {
  return htmlTable(data.header, data.rows);
}

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2430;
  margin: 0 auto; max-width: 1100px; padding: 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px;
  border-bottom: 1px solid #e3e6ea; padding-bottom: 4px; }
.sub { color: #5a6472; margin: 0 0 16px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.card { border: 1px solid #e3e6ea; border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.card b { display: block; font-size: 20px; } .card span { color: #5a6472; font-size: 12px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 16px; }
.pair { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.pair > figure { max-width: 100%; overflow-x: auto; }
figure { margin: 0; } figcaption { color: #5a6472; font-size: 12px; margin-top: 4px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eef0f2; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.note { background: #f6f8fa; border-left: 3px solid #4a7fb5; padding: 8px 12px; }
.warn { background: #fff6e5; border-left: 3px solid #d08a00; padding: 8px 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 10px; }
svg { max-width: 100%; height: auto; }
`;

/**
 * Renders the self-contained HTML report of a run.
 *
 * @param report The run's report model (`buildReport`).
 * @param options Disagreement count.
 * @returns The HTML document.
 */
export function htmlReport(report: RunReport, options: HtmlOptions = {}): string {
  const { run, info, summary, byType, byWorkflow, byQuestion } = report;
  const e = escapeHtml;
  const card = (label: string, value: string, extra = "") =>
    `<div class="card"><span>${e(label)}</span><b>${e(value)}</b><span>${e(extra)}</span></div>`;
  const out: string[] = [];
  out.push(
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>decibench report: ${e(run.spec.workflow)} · ${e(run.id)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>decibench report: ${e(run.spec.workflow)}</h1>`,
    `<p class="sub">run ${e(run.id)} · ${e(run.spec.endpoint)} (${e(run.spec.engine)}) · model ${
      e(run.spec.model + (run.model_reported ? ` (answered by ${run.model_reported})` : ""))
    } · fingerprint ${e(run.spec.fingerprint)}</p>`,
    '<div class="cards">',
    // Only the card protocol has a rating; the question-set note below says why the others do not.
    ...(run.spec.question_set === undefined
      ? [card("rating", runRating(run.spec, summary), `status ${run.status}`)]
      : []),
    ...COLUMN_METRICS.map((m) =>
      card(
        m.label,
        metricText(m, summary.metrics[m.name]),
        `95% CI ${metricInterval(m, summary.intervals[m.name])}`,
      )
    ),
    card(
      "decisions",
      String(summary.decisions),
      `${unlabelledNote(summary)}${summary.answered} answered, ${summary.errors} errors`,
    ),
    "</div>",
  );
  if (run.fatal) out.push(`<p class="warn">Stopped early: ${e(run.fatal)}</p>`);
  const note = protocolNote(run.spec);
  if (note !== null) out.push(`<p class="warn"><b>Question set.</b> ${e(note)}</p>`);
  // Why decisions failed; first of all when nothing was answered (and then no empty chart).
  const errors = errorKindData(report.errors);
  const errorSection = errors.rows.length ? ["<h2>Errors by kind</h2>", htmlData(errors)] : [];
  const charts = summary.answered > 0;
  if (!charts) {
    out.push(...errorSection);
    out.push(
      '<p class="warn">No decision was answered, so there is nothing to chart and every metric is ' +
        "n/a; the errors above say why.</p>",
    );
  }
  if (!run.spec.calibrated) {
    out.push(
      '<p class="warn"><b>Uncalibrated engine.</b> Its probabilities are a raw softmax: confidence ' +
        "thresholds tuned on a calibrated engine do not transfer to it. Accuracy comparisons remain " +
        "valid.</p>",
    );
  }
  // The card's reference points and teacher gold describe Typed Decisions' card protocol only.
  const cardProtocol = run.spec.question_set === undefined;
  out.push(
    cardProtocol
      ? '<p class="note">Intervals are seeded 95% bootstrap intervals resampling cases. Reference ' +
        "points from the dataset card: prior 47.0% accuracy, teacher self-agreement 73.5% (dashed " +
        "lines). Gold is the mean of three samples from a ~4B teacher, so accuracy measures agreement " +
        "with that teacher. Errors count as misses; KL, Brier and ECE cover answered decisions.</p>"
      : '<p class="note">Intervals are seeded 95% bootstrap intervals resampling cases. Errors count ' +
        "as misses; KL, Brier and ECE cover answered decisions.</p>",
  );
  if (charts) out.push(...errorSection);
  out.push("<h2>Metrics</h2>", htmlData(headlineData(summary)));
  const thresholds = thresholdData(run);
  if (thresholds.rows.length) out.push("<h2>Thresholds</h2>", htmlData(thresholds));
  const policy = policyData(run.policy);
  if (policy !== null) {
    out.push(
      "<h2>Policy</h2>",
      `<p>${e(policy.intro)}</p>`,
      htmlData(policy.table),
      `<p class="sub">${e(policy.note)}</p>`,
    );
  }

  out.push("<h2>Accuracy</h2>");
  if (charts) {
    out.push(
      '<div class="grid">',
      `<figure>${
        accuracyChart(byWorkflow, { referencePoints: cardProtocol })
      }<figcaption>Accuracy by ${laneWord(run.spec)} with 95% intervals` +
        "</figcaption></figure>",
      `<figure>${
        accuracyChart(byType, { referencePoints: cardProtocol })
      }<figcaption>Accuracy by question type with 95% intervals` +
        "</figcaption></figure>",
      "</div>",
      `<figure>${
        accuracyChart(byQuestion, { width: 1000, referencePoints: cardProtocol })
      }<figcaption>Accuracy by question (${
        laneWord(run.spec)
      }/question) with 95% intervals</figcaption></figure>`,
    );
  }
  out.push(
    "<h3>By question type</h3>",
    htmlData(breakdownData(byType)),
    `<h3>By ${laneWord(run.spec)}</h3>`,
    htmlData(breakdownData(byWorkflow)),
    "<h3>By question</h3>",
    htmlData(breakdownData(byQuestion)),
  );
  const classes = classesHtml(summary.classes, htmlData, e);
  if (classes !== "") out.push(classes);
  out.push("<h2>Calibration</h2>");
  if (charts) {
    out.push(
      '<div class="grid">',
      `<figure>${
        reliabilityChart(summary.reliability)
      }<figcaption>Reliability diagram: accuracy per confidence bin (bars), mean confidence against ` +
        "accuracy (dots sized by decisions); the dashed diagonal is perfect calibration.</figcaption>" +
        "</figure>",
      `<figure>${
        confidenceHistogram(report.points)
      }<figcaption class="legend">Confidence histogram of the ${report.points.length} answered, labelled decisions:<i style="background:${OUTCOME_COLORS.correct}"></i>correct` +
        `<i style="background:${OUTCOME_COLORS.wrong}"></i>wrong</figcaption></figure>`,
      "</div>",
    );
  }
  out.push(
    `<p>ECE ${
      e(num(summary.metrics.ece))
    }: the standard top-label ECE over 10 equal-width bins (empty bins skipped). The dataset ` +
      "card's ECE definition is unpublished, so this value is not comparable with the card's ECE " +
      "column.</p>",
    htmlData(reliabilityData(summary)),
  );
  out.push(calibrationHtml(report, riskCoverageChart));
  out.push(
    "<h2>Latency and tokens</h2>",
    `<p>${
      summary.latency
        ? `Request latency p50 ${summary.latency.p50.toFixed(1)} ms, p95 ${
          summary.latency.p95.toFixed(1)
        } ms (one request per case). Input tokens ${summary.inputTokens ?? "n/a"}, output tokens 0.`
        : "No request answered."
    }</p>`,
  );
  const replicas = replicaData(run);
  if (replicas.rows.length) out.push("<h2>Replicas</h2>", htmlData(replicas));
  const wrong = disagreementData(
    report.disagreements,
    options.disagreements ?? 20,
    run.spec.question_set?.kind === "file" ? run.spec.question_set.questions : undefined,
  );
  out.push(
    "<h2>Most confident disagreements with gold</h2>",
    wrong.rows.length ? htmlData(wrong) : "<p>None.</p>",
  );
  out.push(
    '<p>The trace of every decision, with the predicted and gold distributions in the same option order, is in <a href="report.md">report.md</a> beside this file.</p>',
    "<h2>Data</h2>",
    `<p>${e(attribution(info))}. Rows unmodified apart from format conversion.</p>`,
    `<p class="sub">decibench ${e(run.tool_version)} · started ${e(run.started_at)}${
      run.finished_at ? ` · finished ${e(run.finished_at)}` : ""
    }</p>`,
    "</body></html>",
    "",
  );
  return out.join("\n");
}
