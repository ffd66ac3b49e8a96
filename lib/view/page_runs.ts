/**
 * `/`: every run in a table that sorts (column header links) and filters (search box, status,
 * workflow and dataset), with a checkbox per run to compare two. A running run shows its progress, which the
 * page's script refreshes while it runs.
 *
 * @module
 */
import { metricOf, SUMMARY_METRICS } from "../export/mod.ts";
import { COLUMN_METRICS } from "../metrics/mod.ts";
import { basename } from "node:path";
import type { RunSpec } from "../record/mod.ts";
import type { CatalogRun, RunProgress } from "./catalog.ts";
import {
  type Html,
  html,
  metricCell,
  notice,
  page,
  runHref,
  shortTime,
  statusBadge,
} from "./_layout.ts";

/** How the runs table is sorted and filtered (the query string of `/`). */
export interface RunsQuery {
  /** Text the run id, workflow, model, endpoint or engine contains. */
  q: string;
  /** Only this status ("" for all). */
  status: string;
  /** Only this workflow ("" for all). */
  workflow: string;
  /** Only runs on this dataset, as {@linkcode datasetLabel} names it ("" for all). */
  dataset: string;
  /** Sort key: a column name or a metric name. */
  sort: string;
  /** Sort direction. */
  order: "asc" | "desc";
}

/** Sort keys that are not metrics. */
const TEXT_KEYS = [
  "id",
  "workflow",
  "dataset",
  "model",
  "endpoint",
  "status",
  "started",
  "decisions",
] as const;

/**
 * Reads the runs table's query string.
 *
 * @param params The query string.
 * @returns The query (unknown sort keys fall back to newest first).
 */
export function parseRunsQuery(params: URLSearchParams): RunsQuery {
  const sort = params.get("sort") ?? "started";
  const known = (TEXT_KEYS as readonly string[]).includes(sort) ||
    SUMMARY_METRICS.some((m) => m.name === sort);
  return {
    q: (params.get("q") ?? "").trim(),
    status: params.get("status") ?? "",
    workflow: params.get("workflow") ?? "",
    dataset: params.get("dataset") ?? "",
    sort: known ? sort : "started",
    order: params.get("order") === "asc" ? "asc" : "desc",
  };
}

/**
 * The dataset a run used, as the runs table names it: Typed Decisions, or the user's file by its
 * name and sha256 prefix (two versions of one file are two datasets).
 *
 * @param spec The run's spec.
 * @returns e.g. `Typed Decisions` or `tickets.csv (4449ecb9)`.
 */
export function datasetLabel(spec: Pick<RunSpec, "question_set">): string {
  const set = spec.question_set;
  return set?.kind === "file"
    ? `${basename(set.path)} (${set.sha256.slice(0, 8)})`
    : "Typed Decisions";
}

function sortValue(entry: CatalogRun, key: string): string | number | null {
  const { run } = entry;
  switch (key) {
    case "id":
      return entry.id;
    case "workflow":
      return run.spec.workflow;
    case "dataset":
      return datasetLabel(run.spec);
    case "model":
      return run.model_reported ?? run.spec.model;
    case "endpoint":
      return run.spec.endpoint;
    case "status":
      return run.status;
    case "started":
      return run.started_at;
    case "decisions":
      return typeof run.summary?.decisions === "number" ? run.summary.decisions : null;
    default:
      return metricOf(run.summary, key);
  }
}

/**
 * Filters and sorts runs as the query says (n/a values last in either direction).
 *
 * @param runs The runs.
 * @param query The query.
 * @returns The runs to show, in order.
 */
export function selectRuns(runs: readonly CatalogRun[], query: RunsQuery): CatalogRun[] {
  const needle = query.q.toLowerCase();
  const shown = runs.filter((r) => {
    if (query.status && r.run.status !== query.status) return false;
    if (query.workflow && r.run.spec.workflow !== query.workflow) return false;
    if (query.dataset && datasetLabel(r.run.spec) !== query.dataset) return false;
    if (!needle) return true;
    const s = r.run.spec;
    const dataset = datasetLabel(s);
    return [r.id, s.workflow, dataset, s.model, r.run.model_reported ?? "", s.endpoint, s.engine]
      .some((t) => t.toLowerCase().includes(needle));
  });
  const sign = query.order === "asc" ? 1 : -1;
  return shown.sort((a, b) => {
    const x = sortValue(a, query.sort);
    const y = sortValue(b, query.sort);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    const c = typeof x === "number" && typeof y === "number"
      ? x - y
      : String(x).localeCompare(String(y));
    return c * sign || b.run.started_at.localeCompare(a.run.started_at);
  });
}

function sortHeader(label: string, key: string, query: RunsQuery, numeric: boolean): Html {
  const active = query.sort === key;
  const next = active && query.order === "desc" ? "asc" : "desc";
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.status) params.set("status", query.status);
  if (query.workflow) params.set("workflow", query.workflow);
  if (query.dataset) params.set("dataset", query.dataset);
  params.set("sort", key);
  params.set("order", next);
  const state = active ? (query.order === "asc" ? "ascending" : "descending") : "none";
  const arrow = active ? (query.order === "asc" ? " ▲" : " ▼") : "";
  return html`
    <th scope="col" aria-sort="${state}"
      ${numeric
        ? html`
          class="n"
        `
        : ""}><a href="/?${params
        .toString()}" data-sort="${key}">${label}${arrow}<span class="visually-hidden">, sort ${next ===
          "asc"
        ? "ascending"
        : "descending"}</span></a></th>
  `;
}

function progressCell(entry: CatalogRun, progress: RunProgress | undefined): Html {
  if (entry.run.status !== "running" || !progress) return statusBadge(entry.run.status);
  return html`
    <span class="live" data-progress-run="${entry.id}"
      aria-live="polite">${statusBadge("running")} <span class="count">${progress
        .casesDone} / ${progress.cases} cases</span>
    <progress max="${progress.cases}" value="${progress
      .casesDone}" aria-label="Progress of run ${entry.id}"></progress></span>
  `;
}

/**
 * The runs page.
 *
 * @param runs Every run (newest first).
 * @param query Sort and filters.
 * @param progress Progress of the running runs, by id.
 * @param problem A message to show above the table (e.g. a refused comparison), or null.
 * @returns The page.
 */
export function runsPage(
  runs: readonly CatalogRun[],
  query: RunsQuery,
  progress: ReadonlyMap<string, RunProgress>,
  problem: string | null = null,
): Html {
  const shown = selectRuns(runs, query);
  const workflows = [...new Set(runs.map((r) => r.run.spec.workflow))].sort();
  const datasets = [...new Set(runs.map((r) => datasetLabel(r.run.spec)))].sort();
  // The footer credits Typed Decisions as its licence asks, and names every other dataset listed.
  const credits = datasets.map((d) =>
    d === "Typed Decisions" ? "Typed Decisions (LocalLLaMA/typed-decisions, Apache-2.0)" : d
  );
  const statuses = ["running", "completed", "incomplete", "interrupted"];
  const metrics = COLUMN_METRICS;
  const filters =
    html`<form class="filters" method="get" action="/" role="search" aria-label="Filter runs">
<div><label for="q">Search</label><input id="q" name="q" type="search" value="${query.q}" placeholder="run id, workflow, dataset, model, endpoint"></div>
<div><label for="status">Status</label><select id="status" name="status"><option value="">any</option>${
      statuses.map((s) =>
        html`
          <option value="${s}" ${query.status === s
            ? html`
              selected
            `
            : ""}>${s}</option>
        `
      )
    }</select></div>
<div><label for="workflow">Workflow</label><select id="workflow" name="workflow"><option value="">any</option>${
      workflows.map((w) =>
        html`
          <option value="${w}" ${query.workflow === w
            ? html`
              selected
            `
            : ""}>${w}</option>
        `
      )
    }</select></div>
<div><label for="dataset">Dataset</label><select id="dataset" name="dataset"><option value="">any</option>${
      datasets.map((d) =>
        html`
          <option value="${d}" ${query.dataset === d
            ? html`
              selected
            `
            : ""}>${d}</option>
        `
      )
    }</select></div>
<input type="hidden" name="sort" value="${query.sort}"><input type="hidden" name="order" value="${query.order}">
<div><button type="submit">Apply</button> <a href="/">Clear</a></div>
</form>`;
  const rows = shown.map((entry) => {
    const { run } = entry;
    const decisions = typeof run.summary?.decisions === "number"
      ? String(run.summary.decisions)
      : entry.run.status === "running"
      ? String(progress.get(entry.id)?.decisions ?? 0)
      : "—";
    // What accuracy is over, when some decisions have no gold label.
    const labelled = typeof run.summary?.labelled === "number" &&
        typeof run.summary.decisions === "number" && run.summary.labelled < run.summary.decisions
      ? run.summary.labelled
      : null;
    return html`<tr data-run="${entry.id}">
<td><input type="checkbox" name="run" value="${entry.id}" id="pick-${entry.id}" aria-label="Select run ${entry.id} to compare"></td>
<td><a href="${runHref(entry.id)}">${entry.id}</a></td>
<td>${run.spec.workflow}</td>
<td class="dataset">${datasetLabel(run.spec)}</td>
<td>${run.model_reported ?? run.spec.model}</td>
<td class="endpoint">${run.spec.endpoint}</td>
<td>${progressCell(entry, progress.get(entry.id))}</td>
<td><time datetime="${run.started_at}">${shortTime(run.started_at)}</time></td>
<td class="n decisions">${decisions}${
      labelled === null
        ? ""
        : html`<span class="ci" data-labelled="${String(labelled)}">${labelled} labelled</span>`
    }</td>
${metrics.map((m) => metricCell(run.summary, m, m.format === "percent"))}
</tr>`;
  });
  const table = html`
    <form method="get" action="/compare" id="compare-form" aria-label="Compare two runs">
      <div
        class="compare-bar"><button type="submit" id="compare-button">Compare the two ticked runs</button> <span id="compare-status" class="muted" aria-live="polite">Tick two runs to compare them.</span></div>
      <div class="scroll">
        <table class="runs">
          <caption>${shown.length} of ${runs
            .length} runs${query.q || query.status || query.workflow || query.dataset
            ? " (filtered)"
            : ""}</caption>
          <thead>
            <tr><th scope="col"><span class="visually-hidden">Compare</span></th>
    ${sortHeader("Run", "id", query, false)}
    ${sortHeader("Workflow", "workflow", query, false)}
    ${sortHeader("Dataset", "dataset", query, false)}
    ${sortHeader("Model", "model", query, false)}
    ${sortHeader("Endpoint", "endpoint", query, false)}
    ${sortHeader("Status", "status", query, false)}
    ${sortHeader("Started", "started", query, false)}
    ${sortHeader("Decisions", "decisions", query, true)}
    ${metrics.map((m) => sortHeader(m.short ?? m.label, m.name, query, true))}
            </tr>
          </thead>
          <tbody>${rows}</tbody>
        </table>
      </div>
    </form>
  `;
  const empty = runs.length === 0
    ? notice(
      "note",
      html`No runs yet. Run <code>deno task bench</code>; its run directory and index entry appear here.`,
    )
    : "";
  return page(
    "Runs",
    html`
      ${problem ? notice("error", problem) : ""}${empty}${filters}${table}
      <p
        class="muted">Accuracy with its 95% bootstrap interval (resampling cases); KL, Brier, ECE and NLL over answered decisions; n/a when a run has no value.</p>
    `,
    { dataset: credits },
  );
}
