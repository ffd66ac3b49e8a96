/**
 * `/runs/<id>/classes`: a run's per-class results — for each question the confusion matrix (rows
 * gold, columns predicted, shaded by the share of the row), precision, recall, F1 and support per
 * class, macro-F1 against the majority baseline, AUROC and AUPRC for yes/no questions — for the
 * whole run or one lane (`?lane=`). The figures are `run.json`'s `summary.classes`; a run that has
 * none yet (still running, or recorded before they were kept) gets them computed by streaming its
 * decisions once through the same accumulator, with the run's seed.
 *
 * @module
 */
import {
  ClassAccumulator,
  type ClassQuestion,
  type ClassResults,
  type ClassTable,
  ERROR_COLUMN,
  type QuestionClasses,
} from "../metrics/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import {
  CLASSES_NOTE,
  classHeading,
  classOverviewData,
  classSummaryText,
  num,
  type TableData,
} from "../report/mod.ts";
import type { CatalogRun } from "./catalog.ts";
import { type Html, html, notice, page, runDataset, runHref } from "./_layout.ts";

/**
 * The URL of a run's per-class page.
 *
 * @param id Run id.
 * @param lane One lane, or undefined for the whole run.
 * @returns `/runs/<id>/classes`, with `?lane=` when a lane is given.
 */
export function classesHref(id: string, lane?: string): string {
  return `${runHref(id)}/classes${lane === undefined ? "" : `?lane=${encodeURIComponent(lane)}`}`;
}

/**
 * A run's per-class results: its summary's, else computed from its decisions (streamed once, a
 * case's decisions being consecutive in record order).
 *
 * @param run The run record.
 * @param decisions Its decisions, in record order.
 * @returns The results by question.
 */
export async function runClassResults(
  run: RunJson,
  decisions: AsyncIterable<DecisionRecord> | Iterable<DecisionRecord>,
): Promise<ClassResults> {
  const saved = run.summary?.classes;
  if (saved !== undefined) return saved;
  const acc = new ClassAccumulator({ seed: run.spec.seed });
  const set = run.spec.question_set;
  const questions = set?.kind === "file"
    ? set.questions as unknown as Record<string, ClassQuestion>
    : undefined;
  let id: string | null = null;
  let batch: DecisionRecord[] = [];
  for await (const d of decisions) {
    if (d.case !== id && batch.length > 0) {
      acc.addCase(id as string, batch, { questions });
      batch = [];
    }
    id = d.case;
    batch.push(d);
  }
  if (id !== null && batch.length > 0) acc.addCase(id, batch, { questions });
  return acc.results();
}

function overviewTable(entry: CatalogRun, data: TableData): Html {
  return html`
    <div class="scroll" tabindex="0" role="region" aria-label="Macro-F1 by question and lane">
      <table id="classes-overview">
        <caption>Macro-F1 against the majority baseline, by question and lane</caption>
        <thead>
          <tr>${data.header.map((h) => html`<th scope="col">${h}</th>`)}</tr>
        </thead>
        <tbody>${data.rows.map((r) =>
          html`<tr data-question="${r[0]}" data-lane="${r[2]}">${
            r.map((c, i) =>
              i === 0
                ? html`<th scope="row"><a href="#q-${c}">${c}</a></th>`
                : i === 2
                ? html`<td>${
                  c === "all" ? c : html`<a href="${classesHref(entry.id, c)}">${c}</a>`
                }</td>`
                : html`<td class="${i === 1 ? "" : "n"}">${c}</td>`
            )
          }</tr>`
        )}</tbody>
      </table>
    </div>
  `;
}

/** The cell's shade: the share of its gold row, as a blue (diagonal) or red (off it) tint. */
function shade(count: number, support: number, diagonal: boolean): string {
  if (count === 0 || support === 0) return "";
  const alpha = (0.08 + 0.5 * (count / support)).toFixed(3);
  return diagonal
    ? `background: rgba(26, 86, 168, ${alpha})`
    : `background: rgba(162, 38, 26, ${alpha})`;
}

function matrixTable(name: string, q: QuestionClasses, t: ClassTable): Html {
  const errors = q.confusion.some((row) => (row[row.length - 1] ?? 0) > 0);
  const columns = errors ? t.columns : t.labels;
  return html`
    <div class="scroll" tabindex="0" role="region" aria-label="Confusion matrix of ${name}">
      <table class="confusion" data-question="${name}">
        <caption>Confusion matrix of ${name}: rows gold, columns predicted</caption>
        <thead>
          <tr><th scope="col">gold \\ predicted</th>${columns.map((c) =>
            html`<th scope="col" class="n">${c === ERROR_COLUMN ? c : classHeading(q, c)}</th>`
          )}<th scope="col" class="n">support</th></tr>
        </thead>
        <tbody>${t.labels.map((gold, i) => {
          const row = t.confusion[i] ?? [];
          const support = t.perClass[i]?.support ?? 0;
          return html`<tr><th scope="row">${classHeading(q, gold)}</th>${
            columns.map((c, j) => {
              const count = row[c === ERROR_COLUMN ? t.labels.length : j] ?? 0;
              return html`
                <td class="n" data-gold="${gold}" data-predicted="${c}"
                  style="${shade(
                    count,
                    support,
                    c === gold,
                  )}">${count}</td>
              `;
            })
          }<td class="n">${support}</td></tr>`;
        })}</tbody>
      </table>
    </div>
  `;
}

function perClassTable(name: string, q: QuestionClasses, t: ClassTable): Html {
  return html`
    <div class="scroll" tabindex="0" role="region" aria-label="Per class: ${name}">
      <table class="per-class" data-question="${name}">
        <caption>Per class: ${name}</caption>
        <thead>
          <tr>${["class", "precision", "recall", "F1", "support"].map((h, i) =>
            html`<th scope="col" class="${i === 0 ? "" : "n"}">${h}</th>`
          )}</tr>
        </thead>
        <tbody>${t.perClass.map((r) =>
          html`
            <tr
              data-label="${r.label}"><th scope="row">${classHeading(q, r.label)}</th>${(
                [
                  ["precision", r.precision],
                  ["recall", r.recall],
                  ["f1", r.f1],
                ] as const
              ).map(([field, v]) =>
                html`<td class="n" data-field="${field}" data-value="${
                  v === null ? "" : String(v)
                }">${num(v)}</td>`
              )}<td class="n" data-field="support" data-value="${String(r.support)}">${r
                .support}</td></tr>
          `
        )}</tbody>
      </table>
    </div>
  `;
}

/** What the per-class page shows. */
export interface ClassesModel {
  /** The run. */
  entry: CatalogRun;
  /** Its per-class results. */
  classes: ClassResults;
  /** The lane shown, or undefined for the whole run. */
  lane?: string | undefined;
}

/**
 * The per-class page of a run.
 *
 * @param m The run, its results and the lane shown.
 * @returns The page.
 */
export function classesPage(m: ClassesModel): Html {
  const { entry, classes, lane } = m;
  const lanes = [...new Set(Object.values(classes).flatMap((q) => Object.keys(q.lanes)))];
  const questions = Object.entries(classes);
  const nav = html`<p class="quick">Lane: ${
    [undefined, ...lanes].map((l) =>
      html`
        <a class="button${l === lane ? " current" : ""}" href="${classesHref(
          entry.id,
          l,
        )}" ${l === lane
          ? html`
            aria-current="page"
          `
          : ""}>${l ?? "all"}</a>
      `
    )
  }</p>`;
  const sections = questions.map(([name, q]) => {
    const t = lane === undefined ? q : q.lanes[lane];
    const title = html`<h2 id="q-${name}">${name} <span class="tag">${q.type}</span></h2>`;
    if (t === undefined) {
      return html`<section>${title}<p class="muted">No labelled decision of ${name} in lane ${lane}.</p></section>`;
    }
    return html`<section aria-labelledby="q-${name}" data-question="${name}">${title}
      <p data-summary="${name}">${classSummaryText({ ...q, ...t })}</p>
      <div class="pair">${matrixTable(name, q, t)}${perClassTable(name, q, t)}</div></section>`;
  });
  const body = questions.length === 0
    ? notice("note", "No labelled decision: this run has no per-class results.")
    : html`${notice("note", CLASSES_NOTE)}${nav}${
      overviewTable(entry, classOverviewData(classes, true))
    }${sections}
      <p class="links"><a href="/api/runs/${
      encodeURIComponent(
        entry.id,
      )
    }/classes">per-class results as JSON</a></p>`;
  return page(`Per-class results${lane === undefined ? "" : ` · lane ${lane}`}`, body, {
    crumbs: [{ label: entry.id, href: runHref(entry.id) }, { label: "Per-class results" }],
    dataset: runDataset(entry.run.spec),
  });
}
