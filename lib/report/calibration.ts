/**
 * The calibration section of the reports: every calibration measure with the
 * estimator it names, the scorer profile, the Murphy decomposition against labels, selective
 * prediction (the risk–coverage curve and confidence thresholds), the temperature what-if, and
 * stability under `--repeat`. Each renderer calls one function of this module.
 *
 * @module
 */
import type { RunStability } from "../record/mod.ts";
import {
  calibrationMeasureData,
  metricOf,
  stabilityData,
  stabilityQuestionData,
} from "./calibration_tables.ts";
import { num, pct, table } from "./format.ts";
import type { TableData } from "./tables.ts";
import type { RunReport } from "./model.ts";

const NOTHING_ANSWERED = "No decision was answered: there is nothing to calibrate.";

const MEASURES_NOTE =
  "Beside the headline 10-bin ECE, each measure names its estimator; none replaces the headline " +
  "figures. Top-label measures cover answered decisions of every type; the Brier decomposition " +
  "covers yes/no questions and the ordinal measures score questions only.";

const PROFILE_NOTE =
  "The four card metrics computed the way Typed Decisions submitters do: pooled over decisions " +
  "or averaged per question, 10 or 15 ECE bins, KL floor 1e-12 or 1e-9, ties between gold " +
  "answers scored by the dataset's label or by any top gold answer. A published number that " +
  "matches one row used that convention.";

const MURPHY_NOTE =
  "Murphy (1973) decomposition of the yes/no Brier score **against labels** — P(yes) against " +
  "outcome 1 when the gold label is yes — unlike the headline Brier, which compares the " +
  "predicted distribution with the gold distribution (and sums both answers). Forecasts are " +
  "grouped by distinct value, so rel − res + unc equals the label Brier exactly.";

const MURPHY_DISTINCT =
  "Almost every forecast value here is distinct, so each group holds about one decision: " +
  "reliability then approaches the label Brier and resolution the uncertainty, and the split " +
  "says little. The decomposition is informative when forecasts repeat (rounded probabilities, " +
  "a prior, a uniform model).";

const SELECTIVE_NOTE =
  "Risk–coverage: answer only the most confident share of decisions (ties at a threshold kept " +
  "whole) and send the rest elsewhere. AURC is the mean error rate over every cut (0 best). The " +
  "table gives the confidence to route on for each coverage, with the exact share and accuracy " +
  "of the decisions at or above it.";

function temperatureNote(seed: number, sample: RunReport["sample"]): string {
  return "How much of the miscalibration one number fixes: per question, one temperature T " +
    "fitted (minimum NLL of the gold label over the predicted distributions) on a seeded half " +
    `of its cases (seed ${seed}) and applied to the other half; ECE (10-bin) and NLL on the ` +
    "held-out half before and after. T < 1 sharpens, T > 1 flattens; accuracy does not change. " +
    "Reported only: the official scores are never tempered." + sampleNote(sample);
}

/**
 * What the calibration tables were computed on when the run is larger than the sample: empty for
 * a run covered whole.
 */
function sampleNote(sample: RunReport["sample"]): string {
  if (sample.decisions >= sample.of) return "";
  return ` Fitted on a sample of at most ${sample.cap.toLocaleString("en-US")} decisions ` +
    `(${sample.decisions.toLocaleString("en-US")} of ${sample.of.toLocaleString("en-US")}, ` +
    "whole cases chosen by a seeded hash of their id); the scorer profile, the Brier " +
    "decomposition, the coverage table and the charts are computed on the same sample.";
}

function stabilityNote(s: RunStability): string {
  return `Stability under load: every case asked ${s.repeat} times at each concurrency ` +
    `(${
      s.parallel.join(", ")
    }); at the run's own concurrency the official pass is the first of them. Each ` +
    "repeat is compared with the official answer: a flip is a different top answer; drift is " +
    "the change of the official top answer's probability (per decision the largest over its " +
    "repeats; median, p95 and max over decisions). Answers are in repeats.jsonl; the official " +
    "scores use the first pass only." + (s.complete ? "" : " The passes were stopped early.");
}

function mdTable(data: TableData, right: readonly number[]): string {
  return table(data.header, data.rows, { markdown: true, right });
}

/**
 * The calibration section of `report.md` (with stability when the run has it).
 *
 * @param report The run's report model (`buildReport`); the what-if's split uses the run's seed.
 * @returns Markdown text.
 */
export function calibrationMarkdown(report: RunReport): string {
  const { run } = report;
  const seed = run.spec.seed;
  if (report.summary.answered === 0) {
    return ["## Calibration measures", "", NOTHING_ANSWERED, "", ...stabilityMarkdown(run)].join(
      "\n",
    );
  }
  const { murphy, temperature, profile, coverage } = report.calibration;
  const out = [
    "## Calibration measures",
    "",
    MEASURES_NOTE,
    "",
    mdTable(calibrationMeasureData(report), [2, 3]),
    "",
    "### Scorer profile",
    "",
    PROFILE_NOTE,
    "",
    mdTable(profile, [2]),
    "",
    "### Brier decomposition (yes/no questions, against labels)",
    "",
    MURPHY_NOTE,
    "",
    murphy.rows.length ? mdTable(murphy, [1]) : "No answered yes/no decision.",
    "",
  ];
  if (murphy.n > 0 && murphy.groups >= 0.9 * murphy.n) out.push(MURPHY_DISTINCT, "");
  out.push(
    "### Selective prediction (risk–coverage)",
    "",
    SELECTIVE_NOTE,
    "",
    mdTable(coverage, [0, 1, 2, 3, 4]),
    "",
    "### What a temperature would fix",
    "",
    temperatureNote(seed, report.sample),
    "",
    mdTable(temperature, [1, 2, 3, 4, 5, 6]),
    "",
  );
  out.push(...stabilityMarkdown(run));
  return out.join("\n");
}

function stabilityMarkdown(run: RunReport["run"]): string[] {
  if (!run.stability) return [];
  return [
    "## Stability under load",
    "",
    stabilityNote(run.stability),
    "",
    mdTable(stabilityData(run.stability), [1, 2, 3, 4, 5, 6, 7]),
    "",
    "<details><summary>Per question</summary>",
    "",
    mdTable(stabilityQuestionData(run.stability), [1, 2, 3, 4, 5, 6, 7]),
    "",
    "</details>",
    "",
  ];
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&quot;",
  );
}

function htmlTable(data: TableData, numeric: readonly number[] = []): string {
  const head = data.header.map((h) => `<th>${escape(h)}</th>`).join("");
  const body = data.rows.map((r) =>
    `<tr>${
      r.map((c, i) => `<td${numeric.includes(i) ? ' class="n"' : ""}>${escape(c)}</td>`).join("")
    }</tr>`
  ).join("\n");
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** Markdown emphasis of the notes as HTML. */
function note(text: string): string {
  return `<p>${escape(text).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>")}</p>`;
}

/**
 * The calibration section of `report.html` (with stability when the run has it), including the
 * risk–coverage chart.
 *
 * @param report The run's report model (`buildReport`); the what-if's split uses the run's seed.
 * @param riskCoverageChart Draws the risk–coverage chart (`lib/charts`'s, passed in so that the
 *   terminal and Markdown reports, which share this file, load no charting library).
 * @returns HTML text.
 */
export function calibrationHtml(
  report: RunReport,
  riskCoverageChart: (points: RunReport["points"]) => string,
): string {
  const { run, points } = report;
  const seed = run.spec.seed;
  if (report.summary.answered === 0) {
    return ["<h2>Calibration measures</h2>", note(NOTHING_ANSWERED), ...stabilityHtml(run)].join(
      "\n",
    );
  }
  const { murphy, temperature, profile, coverage } = report.calibration;
  const out = [
    "<h2>Calibration measures</h2>",
    note(MEASURES_NOTE),
    htmlTable(calibrationMeasureData(report), [2, 3]),
    "<h3>Scorer profile</h3>",
    note(PROFILE_NOTE),
    htmlTable(profile, [2]),
    "<h3>Brier decomposition (yes/no questions, against labels)</h3>",
    note(MURPHY_NOTE),
    murphy.rows.length ? htmlTable(murphy, [1]) : "<p>No answered yes/no decision.</p>",
  ];
  if (murphy.n > 0 && murphy.groups >= 0.9 * murphy.n) out.push(note(MURPHY_DISTINCT));
  out.push(
    "<h3>Selective prediction (risk–coverage)</h3>",
    note(SELECTIVE_NOTE),
    `<figure>${
      riskCoverageChart(points)
    }<figcaption>Risk–coverage curve: error rate of the decisions kept when answering only the most ` +
      "confident share (accuracy = 1 − risk); dashed: perfect ranking and no ranking.</figcaption></figure>",
    htmlTable(coverage, [0, 1, 2, 3, 4]),
    "<h3>What a temperature would fix</h3>",
    note(temperatureNote(seed, report.sample)),
    htmlTable(temperature, [1, 2, 3, 4, 5, 6]),
  );
  out.push(...stabilityHtml(run));
  return out.join("\n");
}

function stabilityHtml(run: RunReport["run"]): string[] {
  if (!run.stability) return [];
  return [
    "<h2>Stability under load</h2>",
    note(stabilityNote(run.stability)),
    htmlTable(stabilityData(run.stability), [1, 2, 3, 4, 5, 6, 7]),
    "<details><summary>Per question</summary>",
    htmlTable(stabilityQuestionData(run.stability), [1, 2, 3, 4, 5, 6, 7]),
    "</details>",
  ];
}

/**
 * The calibration lines of the terminal report (with stability when the run has it).
 *
 * @param report The run's report model (`buildReport`).
 * @returns Lines of text.
 */
export function calibrationTerminal(report: RunReport): string[] {
  const { run, summary } = report;
  const value = (name: string): number | null => metricOf(summary, name);
  if (summary.answered === 0) return [];
  const lines = [
    `calibration ECE 15-bin ${num(value("ece_15"))}, 15 equal-mass ${num(value("ece_em"))}, ` +
    `debiased ${num(value("ece_debiased"))}, per question ${num(value("ece_per_question"))}, ` +
    `MCE ${num(value("mce"))}`,
    `selective   AURC ${num(value("aurc"))}, accuracy ${pct(value("acc_at_50"))} at 50% ` +
    `coverage, ${pct(value("acc_at_80"))} at 80%`,
    `yes/no      label Brier: reliability ${num(value("brier_rel"))}, resolution ` +
    `${num(value("brier_res"))}, uncertainty ${num(value("brier_unc"))} (Murphy, vs labels)`,
    `score       MAE ${num(value("score_mae"))} levels, within one level ` +
    pct(value("score_within_one")),
  ];
  const s = run.stability;
  if (s) {
    const o = s.overall;
    lines.push(
      `stability   ×${s.repeat} at parallel ${s.parallel.join(",")}: top answer flips ${
        o.flipRate === null ? "n/a" : pct(o.flipRate)
      }, drift median ${o.drift ? num(o.drift.median, 4) : "n/a"} p95 ${
        o.drift ? num(o.drift.p95, 4) : "n/a"
      } max ${o.drift ? num(o.drift.max, 4) : "n/a"}`,
    );
  }
  return lines;
}
