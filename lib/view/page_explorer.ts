/**
 * The decision explorer (`/runs/<id>/decisions`): a filter form (lane, question, type, outcome,
 * confidence range, error kind, free text in the state), one-click "Confident mistakes", and a
 * server-side page of matching decisions, each opening into its state and distributions.
 *
 * @module
 */
import { laneWord } from "../report/mod.ts";
import type { Case } from "../dataset/mod.ts";
import type { CatalogRun } from "./catalog.ts";
import { decisionDetails } from "./decision_html.ts";
import {
  CONFIDENT_MISTAKE,
  type DecisionFilter,
  type DecisionPage,
  type Facets,
  filterQuery,
  type Order,
  OUTCOMES,
} from "./explorer.ts";
import { type Html, html, notice, page, runDataset, runHref } from "./_layout.ts";

/**
 * The explorer's link for a filter.
 *
 * @param runId Run id.
 * @param filter The filter.
 * @param extra More query parameters (page, order).
 * @returns `/runs/<id>/decisions?...`.
 */
export function explorerHref(
  runId: string,
  filter: DecisionFilter,
  extra: Record<string, string> = {},
): string {
  const params = filterQuery(filter);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const query = params.toString();
  return `${runHref(runId)}/decisions${query ? `?${query}` : ""}`;
}

/** The filter of "Confident mistakes": wrong answers at 90% confidence or more. */
export const CONFIDENT_MISTAKES: DecisionFilter = {
  outcome: "wrong",
  minConfidence: CONFIDENT_MISTAKE,
};

function select(
  id: string,
  label: string,
  choices: readonly { value: string; label: string }[],
  current: string | undefined,
): Html {
  return html`<div><label for="${id}">${label}</label><select id="${id}" name="${id}"><option value="">any</option>${
    choices.map((c) =>
      html`
        <option value="${c.value}" ${current === c.value
          ? html`
            selected
          `
          : ""}>${c.label}</option>
      `
    )
  }</select></div>`;
}

/**
 * The explorer's filter form, with the one-click filters below it.
 *
 * @param runId Run id.
 * @param facets The values the run's decisions take.
 * @param filter The current filter.
 * @param order The current order.
 * @param lane What the run calls its groups: `lane` (a user's question set) or `workflow`.
 * @returns The form.
 */
export function filterForm(
  runId: string,
  facets: Facets,
  filter: DecisionFilter,
  order: Order,
  lane: "lane" | "workflow" = "workflow",
): Html {
  // A question asked in one group names it; one asked in several (a user's set) counts them.
  const questions = facets.questions.map((q) => {
    const groups = facets.questions.filter((o) => o.name === q.name).length;
    return {
      value: q.name,
      label: groups === 1
        ? `${q.name} (${q.workflow}, ${q.type})`
        : `${q.name} (${q.type}, ${groups} ${lane}s)`,
    };
  }).filter((q, i, all) => all.findIndex((o) => o.value === q.value) === i);
  const conf = (v: number | undefined) => v === undefined ? "" : String(v);
  return html`
    <form class="filters" method="get" action="${runHref(
      runId,
    )}/decisions" aria-label="Filter decisions">
    ${select(
      "workflow",
      lane === "lane" ? "Lane" : "Workflow (lane)",
      facets.workflows.map((w) => ({ value: w.name, label: `${w.name} (${w.n})` })),
      filter.workflow,
    )}
    ${select("question", "Question", questions, filter.question)}
    ${select(
      "type",
      "Type",
      facets.types.map((t) => ({ value: t.name, label: `${t.name} (${t.n})` })),
      filter.type,
    )}
    ${select("outcome", "Outcome", OUTCOMES.map((o) => ({ value: o, label: o })), filter.outcome)}
    <div><label for="min_conf">Confidence from</label><input id="min_conf" name="min_conf" type="number" min="0" max="1" step="0.01" value="${conf(
      filter.minConfidence,
    )}"></div>
    <div><label for="max_conf">Confidence to</label><input id="max_conf" name="max_conf" type="number" min="0" max="1" step="0.01" value="${conf(
      filter.maxConfidence,
    )}"></div>
    ${select(
      "error_kind",
      "Error kind",
      facets.errorKinds.map((e) => ({ value: e.name, label: `${e.name} (${e.n})` })),
      filter.errorKind,
    )}
    <div><label for="q">Text in the state</label><input id="q" name="q" type="search" value="${filter
      .text ?? ""}"></div>
    <div><label for="order">Order</label><select id="order" name="order"><option value="dataset"${order ===
        "dataset"
      ? html`
        selected
      `
      : ""}>as recorded</option><option value="confidence"${order === "confidence"
      ? html`
        selected
      `
      : ""}>most confident first</option></select></div>
    <div><button type="submit">Show decisions</button></div>
    </form>
    <p
      class="quick">One click: <a class="button" id="confident-mistakes" href="${explorerHref(
        runId,
        CONFIDENT_MISTAKES,
        { order: "confidence" },
      )}">Confident mistakes (wrong at ≥ ${CONFIDENT_MISTAKE * 100}%)</a>
    <a class="button" href="${explorerHref(runId, { outcome: "wrong" })}">Wrong answers</a>
    <a class="button" href="${explorerHref(runId, { outcome: "error" })}">Errors</a>
    <a class="button" href="${explorerHref(runId, {})}">All decisions</a></p>
  `;
}

function pager(runId: string, filter: DecisionFilter, result: DecisionPage, order: Order): Html {
  if (result.pages <= 1) return html``;
  const link = (n: number, label: string, rel: string) =>
    html`<a href="${
      explorerHref(runId, filter, { page: String(n), order, per_page: String(result.perPage) })
    }" rel="${rel}">${label}</a>`;
  return html`
    <nav class="pager"
      aria-label="Pages of decisions">${result.page > 1
        ? link(result.page - 1, "← Previous page", "prev")
        : ""} <span>Page ${result.page} of ${result.pages}</span> ${result.page < result.pages
        ? link(result.page + 1, "Next page →", "next")
        : ""}</nav>
  `;
}

/** What the explorer page shows. */
export interface ExplorerModel {
  /** The run. */
  entry: CatalogRun;
  /** Its facets. */
  facets: Facets;
  /** The filter. */
  filter: DecisionFilter;
  /** The order. */
  order: Order;
  /** The page of decisions. */
  result: DecisionPage;
  /** Cases by id, for the states. */
  cases: ReadonlyMap<string, Case | null>;
  /** Problems reading the query string, or a filter that could not apply. */
  problems: string[];
}

/**
 * The explorer page.
 *
 * @param m What to show.
 * @returns The page.
 */
export function explorerPage(m: ExplorerModel): Html {
  const { entry, result } = m;
  const first = (result.page - 1) * result.perPage + 1;
  const last = first + result.decisions.length - 1;
  const summary = result.total === 0
    ? "No decision matches."
    : `Showing ${first}–${last} of ${result.total} matching decisions.`;
  return page(
    `Decisions of ${entry.id}`,
    html`${m.problems.length ? notice("error", m.problems.join("; ")) : ""}
${filterForm(entry.id, m.facets, m.filter, m.order, laneWord(entry.run.spec))}
<p id="match-count" data-total="${result.total}" aria-live="polite">${summary}</p>
<div class="decisions">${
      result.decisions.map((r) =>
        decisionDetails(entry.id, r, m.cases.get(r.case) ?? null, laneWord(entry.run.spec))
      )
    }</div>
${pager(entry.id, m.filter, result, m.order)}`,
    {
      crumbs: [{ label: entry.id, href: runHref(entry.id) }, { label: "Decisions" }],
      dataset: runDataset(entry.run.spec),
    },
  );
}
