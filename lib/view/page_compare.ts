/**
 * `/compare/<a>/<b>`: the paired comparison of two runs — each run's metrics on the shared
 * decisions, the accuracy difference (B − A) with its paired bootstrap interval, McNemar counts
 * and exact p-value, per-workflow and per-question wins — and the decisions that flipped, each
 * opening into both runs' distributions and the state. A refused comparison says why.
 *
 * @module
 */
import type { Case } from "../dataset/mod.ts";
import { metricOf, SUMMARY_METRICS } from "../export/mod.ts";
import type { PairedRow } from "../metrics/mod.ts";
import { interval, metricText, num, pct, type RunComparison } from "../report/mod.ts";
import type { CatalogRun } from "./catalog.ts";
import type { Flip } from "./compare.ts";
import { distributionTable, optionOrder, outcomeOf, stateBlock } from "./decision_html.ts";
import { decisionHref, type Html, html, notice, page, runDataset, runHref } from "./_layout.ts";

/** A page of flipped decisions. */
export interface FlipPage {
  /** Flips in total (after the side filter). */
  total: number;
  /** Page number. */
  page: number;
  /** Pages. */
  pages: number;
  /** Per page. */
  perPage: number;
  /** Only flips won by this side, or all. */
  side: "a" | "b" | "";
  /** The page's flips. */
  flips: Flip[];
}

/** What the compare page shows. */
export interface CompareModel {
  /** Run A. */
  a: CatalogRun;
  /** Run B. */
  b: CatalogRun;
  /** The paired comparison. */
  comparison: RunComparison;
  /** A page of flips. */
  flips: FlipPage;
  /** Cases by id (states). */
  cases: ReadonlyMap<string, Case | null>;
}

/**
 * The compare page's URL.
 *
 * @param a Run A id.
 * @param b Run B id.
 * @returns `/compare/<a>/<b>`.
 */
export function compareHref(a: string, b: string): string {
  return `/compare/${encodeURIComponent(a)}/${encodeURIComponent(b)}`;
}

function signed(v: number | null, percent = true): string {
  if (v === null) return "n/a";
  const text = percent ? `${(v * 100).toFixed(1)} pts` : num(v);
  return v > 0 ? `+${text}` : text;
}

function pValue(p: number): string {
  return p === 0 ? "< 1e-300" : p < 0.001 ? p.toExponential(2) : p.toFixed(3);
}

function pairedTable(caption: string, id: string, rows: readonly PairedRow[]): Html {
  return html`
    <div class="scroll">
      <table id="${id}">
        <caption>${caption}</caption>
        <thead>
          <tr>
            <th scope="col">group</th>
            <th scope="col">n</th>
            <th scope="col">accuracy A</th>
            <th scope="col">accuracy B</th>
            <th scope="col">B − A</th>
            <th scope="col">only A right</th>
            <th scope="col">only B right</th>
            <th scope="col">McNemar p</th>
            <th scope="col">wins</th>
          </tr>
        </thead>
        <tbody>${rows.map((r) =>
          html`
            <tr>
              <th scope="row">${r.key}</th>
              <td class="n">${r.n}</td>
              <td class="n">${pct(r.accuracyA)}</td>
              <td class="n">${pct(r.accuracyB)}</td>
              <td class="n">${signed(r.difference)}</td>
              <td class="n">${r.onlyA}</td>
              <td class="n">${r.onlyB}</td>
              <td class="n">${pValue(r.pValue)}</td>
              <td>${r.onlyB > r.onlyA ? "B" : r.onlyA > r.onlyB ? "A" : "tie"}</td>
            </tr>
          `
        )}</tbody>
      </table>
    </div>
  `;
}

function flipDetails(m: CompareModel, f: Flip): Html {
  const options = optionOrder([f.a, f.b]);
  return html`
    <details class="decision flip" data-case="${f.case}" data-question="${f.question}">
      <summary><span class="who">${f.case} · ${f
        .question}</span> <span class="badge ${f.right === "a"
        ? "correct"
        : "wrong"}">${f.right === "a"
        ? "A right, B not"
        : "B right, A not"}</span> <span class="what">A ${f.a.answer ?? "—"} (${outcomeOf(
          f.a,
        )}), B ${f.b.answer ?? "—"} (${outcomeOf(f.b)}), gold ${f.a.gold ?? "none"}</span></summary>
      <div class="open">
        <div class="split">
    ${distributionTable("Run A, run B and gold distributions, in option order", options, [
      { label: "A", values: f.a.predicted, pick: f.a.answer },
      { label: "B", values: f.b.predicted, pick: f.b.answer },
      { label: "gold", values: f.a.gold_probabilities, pick: null },
    ], f.a.gold ?? "")}
    <div>${stateBlock(m.cases.get(f.case) ?? null)}</div></div>
        <p><a href="${decisionHref(
          m.a.id,
          f.case,
          f.question,
        )}">Open in run A</a> · <a href="${decisionHref(
          m.b.id,
          f.case,
          f.question,
        )}">Open in run B</a></p>
      </div>
    </details>
  `;
}

function flipPager(m: CompareModel): Html {
  const { flips } = m;
  if (flips.pages <= 1) return html``;
  const href = (n: number) => {
    const params = new URLSearchParams({ page: String(n) });
    if (flips.side) params.set("side", flips.side);
    return `${compareHref(m.a.id, m.b.id)}?${params}#flips`;
  };
  return html`
    <nav class="pager"
      aria-label="Pages of flipped decisions">${flips.page > 1
        ? html`<a href="${href(flips.page - 1)}" rel="prev">← Previous page</a>`
        : ""} <span>Page ${flips.page} of ${flips.pages}</span> ${flips.page < flips.pages
        ? html`<a href="${href(flips.page + 1)}" rel="next">Next page →</a>`
        : ""}</nav>
  `;
}

/**
 * The compare page.
 *
 * @param m What to show.
 * @returns The page.
 */
export function comparePage(m: CompareModel): Html {
  const c = m.comparison;
  const p = c.paired;
  const runCell = (e: CatalogRun) =>
    html`<a href="${runHref(e.id)}">${e.id}</a> <span class="muted">(${e.run.spec.workflow}, ${
      e.run.model_reported ?? e.run.spec.model
    })</span>`;
  const fingerprints = m.a.run.spec.fingerprint === m.b.run.spec.fingerprint
    ? notice("note", "Both runs have the same fingerprint: the same configuration measured twice.")
    : notice(
      "note",
      html`The fingerprints differ (<code>${m.a.run.spec.fingerprint}</code> and <code>${m.b.run.spec.fingerprint}</code>) in who answered, not in what was asked: the comparison is about the differences below.`,
    );
  const differences = c.differences.length
    ? html`
      <table id="differences">
        <caption>What differs between the runs</caption>
        <thead>
          <tr>
            <th scope="col">field</th>
            <th scope="col">A</th>
            <th scope="col">B</th>
          </tr>
        </thead>
        <tbody>${c.differences.map((d) =>
          html`
            <tr>
              <th scope="row">${d.field}</th>
              <td>${d.a}</td>
              <td>${d.b}</td>
            </tr>
          `
        )}</tbody>
      </table>
    `
    : html`<p>The runs' configurations are identical.</p>`;
  const metrics = html`
    <table id="metrics">
      <caption>Metrics on the ${p.shared} shared decisions</caption>
      <thead>
        <tr>
          <th scope="col">metric</th>
          <th scope="col">A</th>
          <th scope="col">B</th>
        </tr>
      </thead>
      <tbody>${SUMMARY_METRICS.map((metric) => {
        const va = metricOf(c.a.summary, metric.name);
        const vb = metricOf(c.b.summary, metric.name);
        return html`
          <tr>
            <th scope="row">${metric.label}</th>
            <td class="n" data-value="${va === null ? "" : String(va)}">${metricText(
              metric,
              va,
            )}</td>
            <td class="n" data-value="${vb === null ? "" : String(vb)}">${metricText(
              metric,
              vb,
            )}</td>
          </tr>
        `;
      })}</tbody>
    </table>
  `;
  const headline = html`
    <div class="cards">
      <div class="card" data-metric="difference"
        data-value="${p.difference === null
          ? ""
          : String(p.difference)}"><span class="label">accuracy B − A</span><b>${signed(
            p.difference,
          )}</b><span class="extra">95% CI ${interval(
            p.interval,
            true,
          )} (paired bootstrap, cases)</span></div>
      <div class="card"
        data-metric="mcnemar"><span class="label">McNemar</span><b>${p.mcnemar.onlyA} vs ${p.mcnemar
          .onlyB}</b><span class="extra">only A right vs only B right; exact p ${pValue(
            p.pValue,
          )}</span></div>
      <div
        class="card"><span class="label">shared decisions</span><b>${p
          .shared}</b><span class="extra">${p.sharedCases} cases; ${p.onlyInA} only in A, ${p
          .onlyInB} only in B</span></div>
    </div>
  `;
  const sideLink = (side: "" | "a" | "b", label: string) => {
    const href = `${compareHref(m.a.id, m.b.id)}${side ? `?side=${side}` : ""}#flips`;
    return m.flips.side === side
      ? html`<span aria-current="true" class="button current">${label}</span>`
      : html`<a class="button" href="${href}">${label}</a>`;
  };
  const flipList =
    html`<section aria-labelledby="flips"><h2 id="flips" tabindex="-1">Flipped decisions</h2>
<p class="quick">${sideLink("", "All flips")} ${sideLink("a", "A right, B not")} ${
      sideLink("b", "B right, A not")
    }</p>
<p id="flip-count" data-total="${m.flips.total}">${m.flips.total} decisions flipped${
      m.flips.side ? ` (${m.flips.side === "a" ? "A right, B not" : "B right, A not"})` : ""
    }.</p>
<div class="decisions">${m.flips.flips.map((f) => flipDetails(m, f))}</div>
${flipPager(m)}</section>`;
  return page(
    "Compare runs",
    html`
      <table id="sides">
        <caption>The two runs</caption>
        <tbody>
          <tr>
            <th scope="row">A (baseline)</th>
            <td>${runCell(m.a)}</td>
          </tr>
          <tr>
            <th scope="row">B</th>
            <td>${runCell(m.b)}</td>
          </tr>
        </tbody>
      </table>
      ${fingerprints}
      ${headline}
      ${differences}
      ${metrics}
      ${pairedTable("Per workflow (paired)", "by-workflow", p.byWorkflow)}
      ${pairedTable("Per question (paired)", "by-question", p.byQuestion)}
      ${flipList}
      <p
        class="muted">As <code>deno task compare</code> computes it: the paired bootstrap resamples shared cases (seed 0); a decision with an error counts as wrong.</p>
    `,
    { crumbs: [{ label: `${m.a.id} vs ${m.b.id}` }], dataset: runDataset(m.a.run.spec) },
  );
}

/**
 * The page shown when two runs cannot be compared.
 *
 * @param a Run A.
 * @param b Run B.
 * @param reason Why.
 * @returns The page.
 */
export function refusedPage(a: CatalogRun, b: CatalogRun, reason: string): Html {
  return page(
    "Compare runs",
    html`${notice("error", `Cannot compare runs "${a.id}" and "${b.id}": ${reason}`)}
<p><a href="${runHref(a.id)}">Run ${a.id}</a> · <a href="${
      runHref(b.id)
    }">Run ${b.id}</a> · <a href="/">All runs</a></p>`,
    { crumbs: [{ label: "Refused comparison" }] },
  );
}
