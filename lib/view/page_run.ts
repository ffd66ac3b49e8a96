/**
 * `/runs/<id>`: one run — summary cards, thresholds with pass/fail, the report's charts, the
 * per-lane, per-question and per-type tables, errors by kind with examples, and the decision
 * explorer's filters (one click to the confident mistakes).
 *
 * @module
 */
import { countOf, intervalOf, metricOf, SUMMARY_METRICS } from "../export/mod.ts";
import { COLUMN_METRICS } from "../metrics/mod.ts";
import {
  breakdownData,
  laneWord,
  metricInterval,
  metricText,
  num,
  policyData,
  runRating,
  type TableData,
  thresholdName,
} from "../report/mod.ts";
import type { CatalogRun, RunProgress } from "./catalog.ts";
import type { ErrorGroup, Facets } from "./explorer.ts";
import { CONFIDENT_MISTAKES, explorerHref, filterForm } from "./page_explorer.ts";
import type { RunPageReport } from "./run_report.ts";
import { datasetLabel } from "./page_runs.ts";
import { classesHref } from "./page_classes.ts";
import {
  decisionHref,
  type Html,
  html,
  metricCell,
  notice,
  page,
  raw,
  runDataset,
  shortTime,
  statusBadge,
} from "./_layout.ts";

/** What the run page shows. */
export interface RunModel {
  /** The run. */
  entry: CatalogRun;
  /** Breakdowns and charts. */
  report: RunPageReport;
  /** Errors by kind. */
  errors: ErrorGroup[];
  /** Filter choices. */
  facets: Facets;
  /** Wrong answers at ≥ 90% confidence. */
  confidentMistakes: number;
  /** Progress (for a running run). */
  progress: RunProgress;
  /** Whether the run directory holds report.html. */
  hasReport: boolean;
}

function dataTable(caption: string, data: TableData, id: string): Html {
  return html`
    <div class="scroll">
      <table id="${id}">
        <caption>${caption}</caption>
        <thead>
          <tr>${data.header.map((h) => html`<th scope="col">${h}</th>`)}</tr>
        </thead>
        <tbody>${data.rows.map((r) =>
          html`<tr>${
            r.map((c, i) =>
              i === 0 ? html`<th scope="row">${c}</th>` : html`<td class="n">${c}</td>`
            )
          }</tr>`
        )}</tbody>
      </table>
    </div>
  `;
}

function card(label: string, value: string, extra: string, attrs: Html | string = ""): Html {
  return html`
    <div class="card"
      ${attrs}><span class="label">${label}</span><b>${value}</b><span class="extra">${extra}</span></div>
  `;
}

/**
 * A chart in a figure. The SVG becomes one image named by its caption (`role="img"`), and the
 * per-mark `aria-label`s Observable Plot puts on its groups and shapes (which ARIA does not allow
 * on a bare `g` or `rect`) are dropped: the caption and the tables beside the chart carry its
 * content.
 *
 * @param svg The chart.
 * @param caption Its caption.
 * @param id The caption's id.
 */
function figure(svg: string, caption: string, id: string): Html {
  if (!svg) return html``;
  const image = svg
    .replace(/\saria-label="[^"]*"/g, "")
    .replace(/<svg\b/, `<svg role="img" aria-labelledby="${id}"`);
  return html`<figure>${raw(image)}<figcaption id="${id}">${caption}</figcaption></figure>`;
}

/**
 * The run page.
 *
 * @param m What to show.
 * @returns The page.
 */
export function runPage(m: RunModel): Html {
  const { entry, report } = m;
  const { run } = entry;
  const s = run.summary;
  const spec = run.spec;
  const decisions = countOf(s, "decisions");
  const answered = countOf(s, "answered");
  const labelled = countOf(s, "labelled");
  const errors = countOf(s, "errors");
  const accuracy = metricOf(s, "accuracy");
  const latency = s?.latency as { p50?: number; p95?: number } | null | undefined;
  const header = html`
    <p
      class="sub">${statusBadge(run.status)} · ${spec.workflow} on ${datasetLabel(spec)} · ${spec
        .endpoint} (${spec
        .engine}) · model ${run.model_reported && run.model_reported !== spec.model
        ? `${spec.model} (answered by ${run.model_reported})`
        : spec.model} · fingerprint <code>${spec.fingerprint}</code> · started ${shortTime(
          run.started_at,
        )}${run.finished_at ? ` · finished ${shortTime(run.finished_at)}` : ""}</p>
    <p
      class="links">${m.hasReport
        ? html`
          <a href="/runs/${encodeURIComponent(entry.id)}/report.html">report.html</a> ·
        `
        : ""}<a href="/api/runs/${encodeURIComponent(
          entry.id,
        )}">run as JSON</a> · <a href="${classesHref(
          entry.id,
        )}">per-class results</a> · decisions from ${entry.source === "index"
        ? "the index"
        : "the run directory"}</p>
  `;
  const live = run.status === "running"
    ? html`
      <p class="live" data-progress-run="${entry.id}"
        aria-live="polite">${statusBadge("running")} <span class="count">${m.progress
          .casesDone} / ${m.progress.cases} cases</span>
      <progress max="${m.progress.cases}" value="${m.progress
        .casesDone}" aria-label="Progress of run ${entry.id}"></progress></p>
    `
    : "";
  const cards = html`
    <section aria-labelledby="summary-h">
      <h2 id="summary-h">Summary</h2>
      <div class="cards">
    ${spec.question_set === undefined
      ? card(
        "rating",
        s && answered !== null ? runRating(spec, { answered, metrics: { accuracy } }) : "—",
        `status ${run.status}`,
      )
      : ""}
    ${COLUMN_METRICS.map((metric) => {
      const value = metricOf(s, metric.name);
      const ci = metricInterval(metric, intervalOf(s, metric.name));
      return card(
        metric.label,
        metricText(metric, value),
        ci ? `95% CI ${ci}` : "",
        html`
          data-metric="${metric.name}" data-value="${value === null ? "" : String(value)}"
        `,
      );
    })}
    ${card(
      "decisions",
      decisions === null ? "—" : String(decisions),
      answered === null
        ? ""
        : `${
          labelled !== null && decisions !== null && labelled < decisions
            ? `${labelled} labelled (${decisions - labelled} unlabelled), `
            : ""
        }${answered} answered, ${errors ?? 0} errors`,
      html`
        data-metric="decisions" data-value="${decisions === null ? "" : String(decisions)}"
      `,
    )}
    ${labelled === null ? "" : card(
      "labelled",
      String(labelled),
      "decisions with gold: what every metric is over",
      html`
        data-metric="labelled" data-value="${String(labelled)}"
      `,
    )}
    ${card(
      "latency p50 / p95",
      latency?.p50 !== undefined ? `${latency.p50.toFixed(1)} ms` : "n/a",
      latency?.p95 !== undefined ? `p95 ${latency.p95.toFixed(1)} ms` : "",
    )}
    <div class="card" data-metric="confident_mistakes" data-value="${m
      .confidentMistakes}"><span class="label">confident mistakes</span><b><a href="${explorerHref(
        entry.id,
        CONFIDENT_MISTAKES,
        { order: "confidence" },
      )}">${m.confidentMistakes}</a></b><span class="extra">wrong at ≥ 90% confidence</span></div>
      </div>
    </section>
  `;
  const warnings = html`${run.fatal ? notice("warn", `Stopped early: ${run.fatal}`) : ""}${
    spec.calibrated ? "" : notice(
      "warn",
      "Uncalibrated engine: its probabilities are a raw softmax, so confidence thresholds tuned on a calibrated engine do not transfer to it. Accuracy comparisons remain valid.",
    )
  }`;
  const others = SUMMARY_METRICS.filter((metric) => !COLUMN_METRICS.includes(metric));
  const measures = others.length && s
    ? html`
      <section aria-labelledby="measures-h">
        <h2 id="measures-h">More measures</h2>
        <div class="scroll">
          <table id="measures">
            <caption>Every other registered measure, with its estimator</caption>
            <thead>
              <tr>
                <th scope="col">measure</th>
                <th scope="col">value</th>
                <th scope="col">95% CI</th>
                <th scope="col">estimator</th>
              </tr>
            </thead>
            <tbody>${others.map((metric) =>
              html`<tr><th scope="row">${metric.label}</th>${metricCell(s, metric)}<td class="n">${
                metricInterval(metric, intervalOf(s, metric.name))
              }</td><td>${metric.description}</td></tr>`
            )}</tbody>
          </table>
        </div>
      </section>
    `
    : "";
  const thresholds = run.thresholds.length
    ? html`
      <section aria-labelledby="thr-h">
        <h2 id="thr-h">Thresholds</h2>
        <table id="thresholds">
          <caption>Workflow thresholds</caption>
          <thead>
            <tr>
              <th scope="col">metric</th>
              <th scope="col">condition</th>
              <th scope="col">value</th>
              <th scope="col">result</th>
            </tr>
          </thead>
          <tbody>${run.thresholds.map((t) =>
            html`
              <tr>
                <th scope="row">${thresholdName(t)}</th>
                <td>${t.op} ${t.limit}</td>
                <td class="n">${t.value === null ? "n/a" : num(t.value)}</td>
                <td><span class="badge ${t.pass === null
                  ? ""
                  : t.pass
                  ? "pass"
                  : "fail"}">${t.pass ===
                    null
                  ? "not evaluated"
                  : t.pass
                  ? "pass"
                  : "fail"}</span>${t.not_evaluated === undefined ? "" : ` ${t.not_evaluated}`}</td>
              </tr>
            `
          )}</tbody>
        </table>
      </section>
    `
    : "";
  const policyTable = policyData(report.policy ?? run.policy);
  const policy = policyTable === null ? "" : html`
    <section aria-labelledby="policy-h">
      <h2 id="policy-h">Policy</h2>
      <p>${policyTable.intro}</p>
      <table id="policy">
        <caption>Decision policy per ${laneWord(spec)}</caption>
        <thead>
          <tr>${policyTable.table.header.map((h) => html`<th scope="col">${h}</th>`)}</tr>
        </thead>
        <tbody>${policyTable.table.rows.map(([lane, ...cells]) =>
          html`
            <tr>
              <th scope="row">${lane}</th>${cells.map((cell, i) =>
                i === cells.length - 1
                  ? html`<td><span class="badge ${
                    cell === "holds" ? "pass" : cell === "no longer holds" ? "fail" : ""
                  }">${cell}</span></td>`
                  : html`<td class="n">${cell}</td>`
              )}
            </tr>
          `
        )}</tbody>
      </table>
      <p class="muted">${policyTable.note}</p>
    </section>
  `;
  const explore =
    html`<section aria-labelledby="explore-h"><h2 id="explore-h">Explore decisions</h2>
${filterForm(entry.id, m.facets, {}, "dataset", laneWord(spec))}</section>`;
  const lane = laneWord(spec);
  const charts = report.charts.byWorkflow
    ? html`<section aria-labelledby="charts-h"><h2 id="charts-h">Charts</h2>
<div class="grid">
${figure(report.charts.byWorkflow, `Accuracy by ${lane} with 95% intervals`, "chart-workflow")}
${figure(report.charts.byType, "Accuracy by question type with 95% intervals", "chart-type")}
</div>
${
      figure(
        report.charts.byQuestion,
        `Accuracy by question (${lane}/question) with 95% intervals`,
        "chart-question",
      )
    }
<div class="grid">
${
      figure(
        report.charts.reliability,
        "Reliability diagram: accuracy per confidence bin (bars), mean confidence against accuracy (dots sized by decisions); the dashed diagonal is perfect calibration",
        "chart-reliability",
      )
    }
${
      figure(
        report.charts.histogram,
        `Confidence histogram of the ${report.charted} answered, labelled decisions: correct (blue) and wrong (orange)`,
        "chart-histogram",
      )
    }
</div>
${
      figure(
        report.charts.riskCoverage,
        "Risk–coverage: the share of wrong answers among the decisions kept when only the most confident are answered; dashed, the perfect ranking and no ranking; marked, 50% and 80% coverage",
        "chart-risk-coverage",
      )
    }
</section>`
    : "";
  const tables = report.byWorkflow.length
    ? html`<section aria-labelledby="tables-h"><h2 id="tables-h">By lane, question and type</h2>
${
      dataTable(
        lane === "lane" ? "By lane" : "By workflow (lane)",
        breakdownData(report.byWorkflow),
        "by-workflow",
      )
    }
${dataTable("By question", breakdownData(report.byQuestion), "by-question")}
${dataTable("By question type", breakdownData(report.byType), "by-type")}</section>`
    : "";
  const errorSection =
    html`<section aria-labelledby="errors-h"><h2 id="errors-h">Errors by kind</h2>${
      m.errors.length
        ? html`
          <table id="errors">
            <caption>Failed decisions by error kind, with the first examples</caption>
            <thead>
              <tr>
                <th scope="col">kind</th>
                <th scope="col">decisions</th>
                <th scope="col">examples</th>
              </tr>
            </thead>
            <tbody>${m.errors.map((g) =>
              html`
                <tr>
                  <th scope="row"><a href="${explorerHref(entry.id, { errorKind: g.kind })}">${g
                    .kind}</a></th>
                  <td class="n">${g.count}</td>
                  <td>
                    <ul class="examples">${g.examples.map((e) =>
                      html`<li><a href="${
                        decisionHref(entry.id, e.case, e.question)
                      }">${e.case} · ${e.question}</a>: ${e.message}</li>`
                    )}</ul>
                  </td>
                </tr>
              `
            )}</tbody>
          </table>
        `
        : html`<p>No decision failed.</p>`
    }</section>`;
  return page(
    `Run ${entry.id}`,
    html`
      ${header}${live}${warnings}${cards}${measures}${thresholds}${policy}${explore}${charts}${tables}${errorSection}
      <p
        class="muted">Intervals are seeded 95% bootstrap intervals resampling cases (seed ${spec
          .seed}), as in report.html. Errors count as misses; KL, Brier, ECE and NLL cover answered decisions. ECE is the standard 10-bin top-label ECE${spec
            .question_set === undefined
          ? ", not the dataset card's"
          : ""}.</p>
    `,
    { crumbs: [{ label: entry.id }], dataset: runDataset(spec) },
  );
}
