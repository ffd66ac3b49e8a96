/**
 * `report.md`: headline with rating and intervals, tables by type / workflow / question,
 * calibration, latency, the most confident disagreements, a trace of every decision, attribution.
 *
 * @module
 */
import { attribution, type LevelsOf, levelText } from "../dataset/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import { decisionCounts, num, table } from "./format.ts";
import type { RunReport } from "./model.ts";
import { laneWord, protocolNote, runRating } from "./protocol.ts";
import { breakdownTable, reliabilityText } from "./terminal.ts";
import { disagreementData, headlineData, thresholdData } from "./tables.ts";
import { errorKindData } from "./errors.ts";
import { warningLines } from "./warnings.ts";
import { calibrationMarkdown } from "./calibration.ts";
import { policyData } from "./policy.ts";
import { replicaData } from "./replicas.ts";
import { classesMarkdown } from "./classes.ts";

/** Options for `markdownReport`. */
export interface MarkdownOptions {
  /** How many confident disagreements to list. @default 20 */
  disagreements?: number | undefined;
  /**
   * The run's decisions for the trace, by case id (`inCaseOrder`); the report model holds none.
   * Without them the trace is empty. @default []
   */
  records?: readonly DecisionRecord[] | undefined;
  /** State previews by case id for the trace. @default {} */
  states?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Cases' trace lines already rendered by {@linkcode caseTrace} (with their state), by case id,
   * for the same decisions: a run renders each case's as it is answered. The others are rendered
   * here. @default {none}
   */
  traces?: ReadonlyMap<string, string> | undefined;
}

function dist(d: Record<string, number> | null): string {
  if (!d) return "—";
  return Object.entries(d).map(([k, v]) => `${k}=${v.toFixed(3)}`).join(" ");
}

function sessionRows(run: RunJson): string[][] {
  const sessions = run.sessions ?? [];
  if (sessions.length < 2) return [];
  return [[
    "sessions",
    sessions.map((x, i) =>
      `${i === 0 ? "started" : "resumed"} ${x.started_at}: ${x.asked} cases asked in ${
        (x.duration_ms / 1000).toFixed(1)
      } s (${x.status})`
    ).join("; "),
  ]];
}

/** Control characters (C0 but line feed and tab, DEL, C1): terminal escapes, NUL, CR. */
const CONTROL = /(?![\n\t])\p{Cc}/gu;

/**
 * Writes every control character but line feed and tab as a visible `\xHH` escape, so data
 * (ids, names, answers, messages, states) cannot carry terminal escapes, NUL bytes or carriage
 * returns into a file someone prints with `cat`.
 *
 * @param text Any text.
 * @returns The text with its control characters escaped; unchanged when it has none.
 * @example
 * ```ts
 * import { escapeControl } from "./markdown.ts";
 * escapeControl("a\x1b[2Jb\0"); // "a\\x1b[2Jb\\x00"
 * ```
 */
export function escapeControl(text: string): string {
  return text.replace(
    CONTROL,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * A one-line preview of a state, cut at `width` characters.
 *
 * @param state The state.
 * @param width Maximum length.
 * @returns The preview.
 */
export function statePreview(state: unknown, width = 120): string {
  const text = typeof state === "string" ? state : JSON.stringify(state) ?? "";
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/**
 * One case's lines of the report's trace, as {@linkcode markdownReport} writes them: the case id
 * with its state preview, then each decision with both distributions.
 *
 * @param records The case's decisions, in order (one case id).
 * @param state The case's state, or undefined to show the id alone.
 * @param questions The case's questions by name, when known: a score question's answer and gold
 *   show the level's text.
 * @returns The lines, joined by newlines (no newline at the end), control characters from the
 *   data escaped ({@linkcode escapeControl}).
 */
export function caseTrace(
  records: readonly DecisionRecord[],
  state?: unknown,
  questions?: Readonly<Record<string, LevelsOf>>,
): string {
  const first = records[0];
  if (first === undefined) return "";
  const out = [state === undefined ? first.case : `${first.case}  ${statePreview(state)}`];
  for (const r of records) {
    const mark = r.error
      ? "!"
      : r.gold === null || r.correct === null
      ? "·"
      : r.correct
      ? "✓"
      : "✗";
    out.push(
      `  ${r.question} (${r.type}) ${mark} pred ${
        levelText(questions?.[r.question], r.answer) ?? "—"
      } gold ${levelText(questions?.[r.question], r.gold) ?? "none"}${
        r.error
          ? `  error ${r.error.kind}`
          : r.gold === null
          ? "  unlabelled"
          : `  KL ${num(r.kl ?? null)} Brier ${num(r.brier ?? null)}`
      }`,
    );
    out.push(`    pred ${dist(r.predicted)}`);
    if (r.gold_probabilities !== null) out.push(`    gold ${dist(r.gold_probabilities)}`);
  }
  return escapeControl(out.join("\n"));
}

/**
 * Renders the Markdown report of a run. Control characters from the data (terminal escapes, NUL,
 * carriage returns) are written as visible escapes ({@linkcode escapeControl}).
 *
 * @param report The run's report model (`buildReport`).
 * @param options Disagreement count, state previews.
 * @returns Markdown text.
 */
export function markdownReport(report: RunReport, options: MarkdownOptions = {}): string {
  const { head, tail } = markdownSections(report, options);
  const records = options.records ?? [];
  const out = [head];
  // Each run of decisions of one case, its lines as rendered during the run when they were.
  for (let i = 0; i < records.length;) {
    const id = (records[i] as DecisionRecord).case;
    let end = i + 1;
    while (end < records.length && (records[end] as DecisionRecord).case === id) end++;
    out.push(
      options.traces?.get(id) ?? caseTrace(records.slice(i, end), options.states?.[id]),
    );
    i = end;
  }
  out.push(tail);
  return out.join("\n");
}

/**
 * The Markdown report of a run around its trace: `head + "\n" + T + tail` is the report, where
 * `T` holds each case's {@linkcode caseTrace} followed by a newline (nothing for no case). A run
 * writes its trace case by case into a file as it goes and joins the three at the end.
 *
 * @param report The run's report model (`buildReport`).
 * @param options Disagreement count (states and traces are not read).
 * @returns The text before the trace's first line and the text after its last line's newline.
 */
export function markdownSections(
  report: RunReport,
  options: MarkdownOptions = {},
): { head: string; tail: string } {
  const { run, info, summary } = report;
  const md = { markdown: true };
  const out: string[] = [];
  out.push(`# decibench report: ${run.spec.workflow}`, "");
  out.push(
    table(["", ""], [
      ["run", run.id],
      ["status", run.status + (run.fatal ? ` — ${run.fatal}` : "")],
      ["rating", runRating(run.spec, summary)],
      ["endpoint", `${run.spec.endpoint} (${run.spec.engine})`],
      [
        "model",
        run.spec.model + (run.model_reported ? ` (answered by ${run.model_reported})` : ""),
      ],
      ["fingerprint", run.spec.fingerprint],
      [
        "dataset",
        `${run.spec.dataset} revision ${run.spec.revision.slice(0, 7)}, ${run.spec.split}`,
      ],
      [
        "decisions",
        decisionCounts(summary, {
          selected: run.spec.cases,
          asked: report.asked,
        }),
      ],
      ...sessionRows(run),
    ], { markdown: true, right: [] }),
    "",
  );
  // Why decisions failed; first of all when nothing was answered.
  const errors = errorKindData(report.errors);
  const errorSection = errors.rows.length
    ? ["## Errors by kind", "", table(errors.header, errors.rows, { markdown: true }), ""]
    : [];
  if (summary.answered === 0) {
    out.push(...errorSection);
    out.push("No decision was answered, so every metric below is n/a.", "");
  }
  out.push("## Headline", "");
  const headline = headlineData(summary);
  out.push(table(headline.header, headline.rows, { markdown: true }), "");
  const note = protocolNote(run.spec);
  if (note !== null) out.push(`**Question set.** ${note}`, "");
  // The card's reference points fit its protocol only; teacher gold, Typed Decisions only.
  out.push(
    [
      run.spec.question_set === undefined
        ? "Reference points from the dataset card: prior 47.0% accuracy, teacher self-agreement 73.5%."
        : "",
      run.spec.question_set?.kind !== "file"
        ? "Gold is the mean of three samples from a ~4B teacher, so accuracy measures agreement with " +
          "that teacher, not correctness."
        : "",
      "Errors count as misses; KL, Brier and ECE cover answered decisions only.",
    ].filter(Boolean).join(" "),
    "",
  );
  if (!run.spec.calibrated) {
    out.push(
      "> **Uncalibrated engine.** This engine's probabilities are a raw softmax, not calibrated: " +
        "confidence thresholds tuned on a calibrated engine do not transfer to it (or back). " +
        "Accuracy comparisons remain valid.",
      "",
    );
  }
  const warnings = warningLines(report.warnings);
  if (warnings.length) {
    out.push("> **Answer warnings.** " + warnings.join("; ") + ".", "");
  }
  if (summary.answered > 0) out.push(...errorSection);
  const thresholds = thresholdData(run);
  if (thresholds.rows.length) {
    out.push("## Thresholds", "");
    out.push(
      table(thresholds.header, thresholds.rows, { markdown: true }),
      "",
    );
  }
  const policy = policyData(run.policy);
  if (policy !== null) {
    out.push(
      "## Policy",
      "",
      policy.intro,
      "",
      table(policy.table.header, policy.table.rows, { markdown: true }),
      "",
      policy.note,
      "",
    );
  }
  out.push("## By question type", "", breakdownTable(report.byType, md), "");
  out.push(`## By ${laneWord(run.spec)}`, "", breakdownTable(report.byWorkflow, md), "");
  out.push("## By question", "", breakdownTable(report.byQuestion, md), "");
  out.push(...classesMarkdown(summary.classes));
  out.push("## Calibration", "");
  out.push(
    `ECE ${
      num(summary.metrics.ece)
    }. This is the standard top-label ECE over 10 equal-width bins ` +
      "(empty bins skipped); the dataset card's ECE definition is unpublished, so this value is " +
      "not comparable with the card's ECE column.",
    "",
    reliabilityText(summary, md),
    "",
  );
  out.push(calibrationMarkdown(report));
  out.push("## Latency and tokens", "");
  out.push(
    summary.latency
      ? `Request latency p50 ${summary.latency.p50.toFixed(1)} ms, p95 ${
        summary.latency.p95.toFixed(1)
      } ms (one request per case). Input tokens ${summary.inputTokens ?? "n/a"}, output tokens 0.`
      : "No request answered.",
    "",
  );
  const replicas = replicaData(run);
  if (replicas.rows.length) {
    out.push(
      "## Replicas",
      "",
      "Requests spread over several servers of one model; a replica that failed 5 times in a " +
        "row was left out and its cases asked again on the others.",
      "",
      table(replicas.header, replicas.rows, { markdown: true }),
      "",
    );
  }
  const wrong = disagreementData(
    report.disagreements,
    options.disagreements ?? 20,
    run.spec.question_set?.kind === "file" ? run.spec.question_set.questions : undefined,
  );
  out.push("## Most confident disagreements with gold", "");
  out.push(wrong.rows.length ? table(wrong.header, wrong.rows, { markdown: true }) : "None.", "");
  out.push(
    "## Trace",
    "",
    "<details><summary>Every decision, both distributions in the same option order</summary>",
    "",
  );
  out.push("```");
  const tail = [
    "```",
    "",
    "</details>",
    "",
    "## Data",
    "",
    `${attribution(info)}. Rows unmodified apart from format conversion.`,
    "",
  ];
  // The report's own text has no control character but line feeds: escaping the whole document
  // escapes exactly what the data brought in, wherever it entered.
  return { head: escapeControl(out.join("\n")), tail: escapeControl(tail.join("\n")) };
}
