/**
 * One decision as HTML: a summary line (case, question, answer, confidence, gold, outcome) that
 * opens into the state as pretty JSON and both distributions side by side in option order.
 * Used by the explorer, the decision page and the flipped decisions of a comparison.
 *
 * @module
 */
import { type Case, type LevelsOf, levelText } from "../dataset/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import { num } from "../report/mod.ts";
import { decisionHref, type Html, html } from "./_layout.ts";

/**
 * The outcome of a decision as a word.
 *
 * @param r The decision.
 * @returns `correct`, `wrong`, `unlabelled` (no gold label: neither right nor wrong) or `error`.
 */
export function outcomeOf(r: DecisionRecord): "correct" | "wrong" | "unlabelled" | "error" {
  if (r.error) return "error";
  if (r.gold === null || r.correct === null) return "unlabelled";
  return r.correct ? "correct" : "wrong";
}

/**
 * The option order of a decision: the gold distribution's keys (in option order), then any key
 * only the prediction has.
 *
 * @param records Decisions on the same question (one per run shown).
 * @returns The option keys.
 */
export function optionOrder(records: readonly DecisionRecord[]): string[] {
  const keys: string[] = [];
  for (const r of records) {
    for (const k of Object.keys(r.gold_probabilities ?? {})) if (!keys.includes(k)) keys.push(k);
    for (const k of Object.keys(r.predicted ?? {})) if (!keys.includes(k)) keys.push(k);
  }
  return keys;
}

/** One column of a distribution table. */
export interface DistributionColumn {
  /** Column title. */
  label: string;
  /** Probability per option, or null (an error: nothing predicted). */
  values: Readonly<Record<string, number>> | null;
  /** The option this column picked, to mark. */
  pick?: string | null;
}

/**
 * A table of distributions side by side, one row per option in option order.
 *
 * @param caption Table caption.
 * @param options Option keys in order.
 * @param columns The distributions.
 * @param gold The gold label (its row is marked).
 * @param question The question, when known: a score question's rows show each level's text.
 * @returns The table.
 */
export function distributionTable(
  caption: string,
  options: readonly string[],
  columns: readonly DistributionColumn[],
  gold: string,
  question?: LevelsOf,
): Html {
  return html`
    <table class="dist">
      <caption>${caption}</caption>
      <thead>
        <tr><th scope="col">option</th>${columns.map((c) =>
          html`<th scope="col">${c.label}</th>`
        )}</tr>
      </thead>
      <tbody>${options.map((o) =>
        html`<tr${
          o === gold
            ? html`
              class="gold-row"
            `
            : ""
        }><th scope="row">${levelText(question, o, { max: 80 })}${
          o === gold
            ? html`
              <span class="tag">gold</span>
            `
            : ""
        }</th>${
          columns.map((c) => {
            const p = c.values?.[o];
            const picked = c.pick === o;
            return html`<td class="n${picked ? " picked" : ""}">${p === undefined ? "—" : num(p)}${
              picked
                ? html`
                  <span class="tag">pick</span>
                `
                : ""
            }${
              p === undefined
                ? ""
                : html`<span class="bar" aria-hidden="true"><span style="width:${
                  Math.round(Math.max(0, Math.min(1, p)) * 100)
                }%"></span></span>`
            }</td>`;
          })
        }</tr>`
      )}</tbody>
    </table>
  `;
}

/**
 * The state of a case as pretty JSON (escaped: markup in a state is shown, never run).
 *
 * @param c The case, or null when the run's states are not at hand.
 * @param missing Why the state is not at hand (naming a changed or missing file), when known.
 * @returns The block.
 */
export function stateBlock(c: Case | null, missing?: string | null): Html {
  if (!c) {
    return html`
      <p class="muted" data-state-missing>${missing
        ? `${missing}, so the state is not shown`
        : "The state is not at hand"}</p>
    `;
  }
  return html`<pre class="state" tabindex="0" aria-label="State of case ${c.id}">${
    JSON.stringify(c.state, null, 2)
  }</pre>`;
}

/**
 * The facts of one decision as a definition list.
 *
 * @param r The decision.
 * @param question Its question, when known: a score question's answer and gold show the level's
 *   text.
 * @param lane What the run calls its groups: `lane` (a user file) or `workflow`.
 * @returns The list.
 */
export function decisionFacts(
  r: DecisionRecord,
  question?: LevelsOf,
  lane: "lane" | "workflow" = "workflow",
): Html {
  const facts: [string, string][] = [
    [lane, r.workflow],
    ["type", r.type],
    ["answer", levelText(question, r.answer) ?? "—"],
    ["confidence", num(r.confidence)],
    ["gold", levelText(question, r.gold) ?? "none (unlabelled)"],
    ["outcome", outcomeOf(r)],
    ["KL", num(r.kl ?? null)],
    ["Brier", num(r.brier ?? null)],
    ["latency", r.latency_ms === null ? "n/a" : `${r.latency_ms.toFixed(1)} ms`],
    ["attempts", String(r.attempts)],
  ];
  if (r.error) facts.push(["error", `${r.error.kind}: ${r.error.message}`]);
  for (const w of r.warnings ?? []) facts.push(["warning", w]);
  return html`<dl class="facts">${
    facts.map(([k, v]) =>
      html`
        <dt>${k}</dt>
        <dd>${v}</dd>
      `
    )
  }</dl>`;
}

/**
 * One decision as an expandable row of the explorer.
 *
 * @param runId The run id.
 * @param r The decision.
 * @param c Its case (for the state), or null.
 * @param lane What the run calls its groups: `lane` (a user file) or `workflow`.
 * @returns A `<details>` element.
 */
export function decisionDetails(
  runId: string,
  r: DecisionRecord,
  c: Case | null,
  lane: "lane" | "workflow" = "workflow",
): Html {
  const outcome = outcomeOf(r);
  const options = optionOrder([r]);
  const question = c?.questions[r.question];
  return html`
    <details class="decision ${outcome}" data-case="${r.case}" data-question="${r.question}">
      <summary><span class="who">${r.case} · ${r
        .question}</span> <span class="badge ${outcome}">${outcome}</span> <span class="what">answer ${levelText(
          question,
          r.answer,
        ) ?? "—"} at ${num(r.confidence)}, ${r.gold === null
        ? "no gold label"
        : `gold ${levelText(question, r.gold) ?? r.gold}`}</span></summary>
      <div class="open">
    ${decisionFacts(r, question, lane)}
    <div class="split">
    ${distributionTable(
      "Predicted and gold distributions, in option order",
      options,
      [
        { label: "predicted", values: r.predicted, pick: r.answer },
        { label: "gold", values: r.gold_probabilities, pick: null },
      ],
      r.gold ?? "",
      question,
    )}
    <div>${stateBlock(c)}</div>
    </div>
    <p><a href="${decisionHref(
      runId,
      r.case,
      r.question,
    )}">Open this decision on its own page</a></p>
      </div>
    </details>
  `;
}
