/**
 * The page shell and the small pieces every page uses. Pages are built with hono's `html`
 * template, which escapes every interpolated value: text from a run (a state, a model name, a
 * server's error message) is always shown as text. Only SVG that decibench drew itself goes in
 * through `raw`.
 *
 * @module
 */
import { html, raw } from "hono/html";
import { interval, num, pct } from "../report/mod.ts";
import { intervalOf, metricOf, type SummaryLike } from "../export/mod.ts";

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
}

/**
 * A whole page: doctype, title, stylesheet and script (both served by the view), skip link,
 * header with breadcrumbs, and the body in `<main>`.
 *
 * @param title Page title (also the `<h1>`).
 * @param body The page's content.
 * @param options Breadcrumbs.
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
          class="foot">Local, read-only view of decibench runs. Dataset: Typed Decisions (LocalLLaMA/typed-decisions, Apache-2.0).</footer>
      </body>
    </html>
  `;
}

/**
 * A metric's value as the reports print it (a percentage for accuracy-like metrics).
 *
 * @param value The value, or null.
 * @param format The metric's format.
 * @returns e.g. `74.8%`, `0.121` or `n/a`.
 */
export function formatMetric(value: number | null, format: "percent" | "number"): string {
  return format === "percent" ? pct(value) : num(value);
}

/**
 * A metric's interval as the reports print it.
 *
 * @param summary The run summary.
 * @param name Metric name.
 * @param format The metric's format.
 * @returns e.g. `[72.6, 76.8]`, or "" when none.
 */
export function formatInterval(
  summary: SummaryLike,
  name: string,
  format: "percent" | "number",
): string {
  return interval(intervalOf(summary, name), format === "percent");
}

/**
 * A table cell with a metric: the formatted value, the raw value in `data-value` (what tests and
 * scripts compare with run.json) and, when asked, the interval under it.
 *
 * @param summary The run summary.
 * @param name Metric name.
 * @param format The metric's format.
 * @param withInterval Show the 95% interval.
 * @returns The `<td>`.
 */
export function metricCell(
  summary: SummaryLike,
  name: string,
  format: "percent" | "number",
  withInterval = false,
): Html {
  const value = metricOf(summary, name);
  const ci = withInterval ? formatInterval(summary, name, format) : "";
  return html`<td class="n" data-metric="${name}" data-value="${
    value === null ? "" : String(value)
  }">${formatMetric(value, format)}${ci ? html`<span class="ci">${ci}</span>` : ""}</td>`;
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
