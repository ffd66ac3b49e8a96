/**
 * The page shell and the small pieces every page uses. Pages are built with hono's `html`
 * template, which escapes every interpolated value: text from a run (a state, a model name, a
 * server's error message) is always shown as text. Only SVG that decibench drew itself goes in
 * through `raw`.
 *
 * @module
 */
import { html, raw } from "hono/html";
import type { MetricBase } from "../metrics/mod.ts";
import { metricInterval, metricText } from "../report/mod.ts";
import { intervalOf, metricOf, type SummaryLike } from "../export/mod.ts";
import { attribution, DATASET_URL } from "../dataset/mod.ts";
import type { RunSpec } from "../record/mod.ts";

/** A piece of escaped HTML. */
export type Html = ReturnType<typeof html>;

export { html, raw };

/** A link in the breadcrumb trail. */
export interface Crumb {
  /** Link text. */
  label: string;
  /** Target; the last crumb (the current page) has none. */
  href?: string;
}

/** Options for {@linkcode page}. */
export interface PageOptions {
  /** The breadcrumb trail after "Runs". @default [] */
  crumbs?: Crumb[];
  /**
   * The dataset of the run the page is about, as its attribution line (a user file named by its
   * file, rows and sha256 prefix), or the datasets of the runs a page lists.
   * @default none named (a page about no run)
   */
  dataset?: string | readonly string[] | undefined;
}

/** The footer's dataset sentence. */
function footerDataset(dataset: PageOptions["dataset"]): string {
  const list = dataset === undefined ? [] : typeof dataset === "string" ? [dataset] : dataset;
  if (list.length === 0) return "Each run names its dataset.";
  return `${list.length === 1 ? "Dataset" : "Datasets"}: ${list.join("; ")}.`;
}

/**
 * A whole page: doctype, title, stylesheet and script (both served by the view), skip link,
 * header with breadcrumbs, and the body in `<main>`.
 *
 * @param title Page title (also the `<h1>`).
 * @param body The page's content.
 * @param options Breadcrumbs and the dataset line of the footer.
 * @returns The document.
 */
export function page(title: string, body: Html, options: PageOptions = {}): Html {
  const crumbs = options.crumbs ?? [];
  const trail = [{ label: "Runs", href: "/" }, ...crumbs];
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title} · decibench view</title>
        <link rel="stylesheet" href="/assets/view.css">
        <script src="/assets/view.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <nav aria-label="Breadcrumb">
            <ol class="crumbs">${trail.map((c, i) =>
              i === trail.length - 1 && !c.href
                ? html`<li><span aria-current="page">${c.label}</span></li>`
                : html`<li><a href="${c.href ?? "/"}">${c.label}</a></li>`
            )}</ol>
          </nav>
          <span class="brand">decibench view · read-only</span>
        </header>
        <main id="main" tabindex="-1">
    <h1>${title}</h1>
    ${body}
        </main>
        <footer
          class="foot">Local, read-only view of decibench runs. ${footerDataset(
            options.dataset,
          )}</footer>
      </body>
    </html>
  `;
}

/**
 * The attribution line of the dataset a run used: Typed Decisions with its revision and licence,
 * or the user's file with its rows and sha256 prefix.
 *
 * @param spec The run's spec.
 * @returns The line, for {@linkcode PageOptions.dataset}.
 */
export function runDataset(
  spec: Pick<RunSpec, "dataset" | "revision" | "license" | "question_set">,
): string {
  return attribution({
    dataset: spec.dataset,
    revision: spec.revision,
    license: spec.license,
    url: DATASET_URL,
    questionSet: spec.question_set,
  });
}

/**
 * A table cell with a metric: the value as the reports print it, the raw value in `data-value`
 * (what tests and scripts compare with run.json) and, when asked, the 95% interval under it.
 *
 * @param summary The run summary.
 * @param metric The metric's definition.
 * @param withInterval Show the interval.
 * @returns The `<td>`.
 */
export function metricCell(summary: SummaryLike, metric: MetricBase, withInterval = false): Html {
  const value = metricOf(summary, metric.name);
  const ci = withInterval ? metricInterval(metric, intervalOf(summary, metric.name)) : "";
  return html`<td class="n" data-metric="${metric.name}" data-value="${
    value === null ? "" : String(value)
  }">${metricText(metric, value)}${ci ? html`<span class="ci">${ci}</span>` : ""}</td>`;
}

/**
 * A status badge.
 *
 * @param status Run status.
 * @returns The badge.
 */
export function statusBadge(status: string): Html {
  return html`<span class="badge status-${status}">${status}</span>`;
}

/**
 * The URL of a run's page.
 *
 * @param id Run id.
 * @returns `/runs/<id>` with the id encoded.
 */
export function runHref(id: string): string {
  return `/runs/${encodeURIComponent(id)}`;
}

/**
 * The URL of one decision's page.
 *
 * @param id Run id.
 * @param caseId Case id.
 * @param question Question name.
 * @returns `/runs/<id>/decisions/<case>/<question>`.
 */
export function decisionHref(id: string, caseId: string, question: string): string {
  return `${runHref(id)}/decisions/${encodeURIComponent(caseId)}/${encodeURIComponent(question)}`;
}

/**
 * A short date-time for tables: `2026-12-01 21:56`.
 *
 * @param iso ISO 8601 time.
 * @returns The text (the ISO text itself when it does not parse).
 */
export function shortTime(iso: string | null): string {
  if (!iso) return "";
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}

/**
 * A notice box.
 *
 * @param kind `note`, `warn` or `error` (an error box is announced by screen readers).
 * @param body Its content.
 * @returns The box.
 */
export function notice(kind: "note" | "warn" | "error", body: Html | string): Html {
  return kind === "error"
    ? html`<div class="notice error" role="alert">${body}</div>`
    : html`<div class="notice ${kind}">${body}</div>`;
}
