/**
 * The per-class section of the reports (`summary.classes`, see `ClassAccumulator`): for each
 * question its confusion matrix (rows gold, columns predicted, then `error` when a labelled
 * decision got no answer), precision, recall, F1 and support per class, macro-F1 against the
 * majority-class baseline, AUROC and AUPRC for yes/no questions, and the same figures per lane.
 * The tables are data ({@linkcode TableData}) that the terminal, Markdown and HTML reports and the
 * view render alike.
 *
 * @module
 */
import {
  type ClassResults,
  type ClassTable,
  ERROR_COLUMN,
  type Interval,
  type QuestionClasses,
} from "../metrics/mod.ts";
import { interval, num, pct, table } from "./format.ts";
import { clipName, type TableData } from "./tables.ts";

/** How many characters of a score level's text a class heading shows after its index. */
const LEVEL_WIDTH = 24;

/**
 * A class's heading: the option name, or for a score level its index and the start of its text
 * (up to the first `:` or `;`, at most 24 characters), e.g. `2 High`.
 *
 * @param question The question's results.
 * @param label The class.
 * @returns The heading.
 */
export function classHeading(question: QuestionClasses, label: string): string {
  const i = question.labels.indexOf(label);
  const text = i < 0 ? undefined : question.levels?.[i];
  if (text === undefined || text === "") return label;
  const head = text.split(/[:;]/)[0]?.trim() ?? "";
  const short = head.length > LEVEL_WIDTH ? `${head.slice(0, LEVEL_WIDTH - 1)}…` : head;
  return short === "" ? label : `${label} ${short}`;
}

/** Whether a question's matrix shows the `error` column: some labelled decision got no answer. */
function showsErrors(question: QuestionClasses): boolean {
  return question.confusion.some((row) => (row[row.length - 1] ?? 0) > 0);
}

/**
 * A confusion matrix as a table: one row per gold class, one column per predicted class, then
 * `error` when the question has errored decisions, then the row's total (the support).
 *
 * @param question The question's results (its headings and whether errors are shown).
 * @param group The overall table or one lane's (default: overall).
 * @returns The table.
 */
export function confusionData(
  question: QuestionClasses,
  group: ClassTable = question,
): TableData {
  const errors = showsErrors(question);
  const labels = group.labels;
  const header = [
    "gold \\ predicted",
    ...labels.map((l) => classHeading(question, l)),
    ...(errors ? [ERROR_COLUMN] : []),
    "support",
  ];
  const rows = labels.map((label, i) => {
    const row = group.confusion[i] ?? [];
    const cells = row.slice(0, labels.length).map(String);
    if (errors) cells.push(String(row[labels.length] ?? 0));
    return [classHeading(question, label), ...cells, String(group.perClass[i]?.support ?? 0)];
  });
  return { header, rows };
}

/**
 * Precision, recall, F1 and support per class, as a table.
 *
 * @param question The question's results (its headings).
 * @param group The overall table or one lane's (default: overall).
 * @returns The table.
 */
export function perClassData(question: QuestionClasses, group: ClassTable = question): TableData {
  return {
    header: ["class", "precision", "recall", "F1", "support"],
    rows: group.perClass.map((r) => [
      classHeading(question, r.label),
      num(r.precision),
      num(r.recall),
      num(r.f1),
      String(r.support),
    ]),
  };
}

function withInterval(value: number | null | undefined, ci: Interval | null | undefined): string {
  if (value === undefined) return "";
  const text = interval(ci ?? null);
  return text === "" ? num(value) : `${num(value)} ${text}`;
}

function overviewRow(name: string, type: string, lane: string, t: ClassTable): string[] {
  return [
    name,
    type,
    lane,
    String(t.n),
    num(t.macroF1),
    pct(t.majorityBaseline),
    withInterval(t.auroc, t.intervals?.auroc),
    withInterval(t.auprc, t.intervals?.auprc),
  ];
}

const OVERVIEW_HEADER = [
  "question",
  "type",
  "lane",
  "n",
  "macro-F1",
  "majority baseline",
  "AUROC",
  "AUPRC",
];

/**
 * One row per question (lane `all`), with its lanes' rows when `lanes` is set: labelled n,
 * macro-F1, the majority baseline's accuracy, and AUROC and AUPRC with their intervals for
 * yes/no questions.
 *
 * @param classes The run's per-class results.
 * @param lanes Add each question's lanes after it.
 * @returns The table.
 */
export function classOverviewData(classes: ClassResults, lanes = false): TableData {
  const rows: string[][] = [];
  for (const [name, q] of Object.entries(classes)) {
    rows.push(overviewRow(name, q.type, "all", q));
    if (!lanes) continue;
    for (const [lane, t] of Object.entries(q.lanes)) rows.push(overviewRow(name, q.type, lane, t));
  }
  return { header: OVERVIEW_HEADER, rows };
}

/**
 * A question's lanes as a table: labelled n, macro-F1, majority baseline, AUROC and AUPRC, then
 * each class's F1.
 *
 * @param question The question's results.
 * @returns The table.
 */
export function laneClassData(question: QuestionClasses): TableData {
  return {
    header: [
      "lane",
      "n",
      "macro-F1",
      "majority baseline",
      ...(question.type === "noul" ? ["AUROC", "AUPRC"] : []),
      ...question.labels.map((l) => `F1 ${classHeading(question, l)}`),
    ],
    rows: Object.entries(question.lanes).map(([lane, t]) => [
      lane,
      String(t.n),
      num(t.macroF1),
      pct(t.majorityBaseline),
      ...(question.type === "noul"
        ? [withInterval(t.auroc, t.intervals?.auroc), withInterval(t.auprc, t.intervals?.auprc)]
        : []),
      ...t.perClass.map((r) => num(r.f1)),
    ]),
  };
}

/**
 * A question's one-line summary: labelled n, macro-F1, majority baseline, AUROC and AUPRC.
 *
 * @param question The question's results.
 * @returns e.g. `2390 labelled · macro-F1 0.890 · majority baseline 21.2%`.
 */
export function classSummaryText(question: QuestionClasses): string {
  const parts = [
    `${question.n} labelled`,
    `macro-F1 ${num(question.macroF1)}`,
    `majority baseline ${pct(question.majorityBaseline)}`,
  ];
  if (question.auroc !== undefined) {
    parts.push(`AUROC ${withInterval(question.auroc, question.intervals?.auroc)}`);
    parts.push(`AUPRC ${withInterval(question.auprc, question.intervals?.auprc)}`);
  }
  return parts.join(" · ");
}

/** What the per-class section says its figures are. */
export const CLASSES_NOTE: string =
  "Labelled decisions only. Rows are the gold class, columns the predicted one (the argmax; the " +
  "option listed first wins a tie); the error column counts labelled decisions that got no answer: they " +
  "count against recall, and precision is over answered predictions. Macro-F1 is the mean F1 " +
  "over the classes that occur; the majority baseline is the accuracy of always answering the " +
  "most frequent gold class. AUROC and AUPRC (yes/no questions: P(yes) against gold true, over " +
  "answered decisions) read a 1,000-bin histogram of P(yes), with seeded 95% bootstrap intervals.";

/**
 * The terminal's per-class lines: one row per question (macro-F1 against the majority baseline,
 * AUROC for yes/no questions) and where the matrices are.
 *
 * @param classes The run's per-class results (none: no lines).
 * @returns Lines of text, ending with an empty line.
 */
export function classesTerminal(classes: ClassResults | undefined): string[] {
  if (classes === undefined || Object.keys(classes).length === 0) return [];
  const data = classOverviewData(classes);
  const keep = [0, 1, 3, 4, 5, 6];
  const header = keep.map((i) => data.header[i] as string);
  const rows = data.rows.map((r) =>
    keep.map((i) => i === 0 ? clipName(r[i] as string) : r[i] as string)
  );
  return [
    "Per class (confusion matrices, per-class and per-lane figures: report.md)",
    table(header, rows),
    "",
  ];
}

/**
 * The Markdown report's per-class section.
 *
 * @param classes The run's per-class results (none: no section).
 * @returns The section's lines.
 */
export function classesMarkdown(classes: ClassResults | undefined): string[] {
  if (classes === undefined || Object.keys(classes).length === 0) return [];
  const md = { markdown: true };
  const out = ["## Per-class results", "", CLASSES_NOTE, ""];
  const overview = classOverviewData(classes);
  out.push(table(overview.header, overview.rows, md), "");
  for (const [name, q] of Object.entries(classes)) {
    out.push(`### ${name} (${q.type})`, "", classSummaryText(q), "");
    const matrix = confusionData(q);
    out.push(table(matrix.header, matrix.rows, md), "");
    const per = perClassData(q);
    out.push(table(per.header, per.rows, md), "");
    if (Object.keys(q.lanes).length > 0) {
      const lanes = laneClassData(q);
      out.push(`By lane:`, "", table(lanes.header, lanes.rows, md), "");
    }
  }
  return out;
}

/**
 * The HTML report's per-class section.
 *
 * @param classes The run's per-class results (none: no section).
 * @param render Renders a table as HTML.
 * @param escape Escapes text for HTML.
 * @returns The section's HTML.
 */
export function classesHtml(
  classes: ClassResults | undefined,
  render: (data: TableData) => string,
  escape: (text: string) => string,
): string {
  if (classes === undefined || Object.keys(classes).length === 0) return "";
  const out = [
    '<h2 id="per-class">Per-class results</h2>',
    `<p class="note">${escape(CLASSES_NOTE)}</p>`,
    render(classOverviewData(classes)),
  ];
  for (const [name, q] of Object.entries(classes)) {
    out.push(
      `<h3>${escape(name)} (${escape(q.type)})</h3>`,
      `<p>${escape(classSummaryText(q))}</p>`,
      '<div class="pair">',
      `<figure>${render(confusionData(q))}<figcaption>Confusion matrix: rows gold, columns ` +
        "predicted</figcaption></figure>",
      `<figure>${render(perClassData(q))}<figcaption>Per class</figcaption></figure>`,
      "</div>",
    );
    if (Object.keys(q.lanes).length > 0) {
      out.push(`<h4>${escape(name)} by lane</h4>`, render(laneClassData(q)));
    }
  }
  return out.join("\n");
}
