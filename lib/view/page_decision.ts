/**
 * `/runs/<id>/decisions/<case>/<question>`: one decision on its own page — its facts, both
 * distributions side by side in option order, and the state as pretty JSON.
 *
 * @module
 */
import type { Case } from "../dataset/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import { laneWord } from "../report/mod.ts";
import type { CatalogRun } from "./catalog.ts";
import { decisionFacts, distributionTable, optionOrder, stateBlock } from "./decision_html.ts";
import { type Html, html, page, runDataset, runHref } from "./_layout.ts";

/** A user file's question as the run recorded it (shown when the state is not at hand). */
function recordedQuestion(
  entry: CatalogRun,
  name: string,
): { instructions: string; type: string; criteria?: unknown } | undefined {
  const set = entry.run.spec.question_set;
  return set?.kind === "file" ? set.questions[name] : undefined;
}

/** Options of {@linkcode decisionPage}. */
export interface DecisionPageOptions {
  /**
   * Why the state is not at hand (e.g. the recorded file changed), shown in its place.
   * @default null
   */
  missing?: string | null | undefined;
}

/**
 * The decision page.
 *
 * @param entry The run.
 * @param r The decision.
 * @param c Its case, or null when the state is not at hand.
 * @param options Why the state is missing.
 * @returns The page.
 */
export function decisionPage(
  entry: CatalogRun,
  r: DecisionRecord,
  c: Case | null,
  options: DecisionPageOptions = {},
): Html {
  const question = c?.questions[r.question] ?? recordedQuestion(entry, r.question);
  return page(
    `${r.case} · ${r.question}`,
    html`<p class="sub">Run <a href="${runHref(entry.id)}">${entry.id}</a>${
      question
        ? html`
          · ${question.instructions}
        `
        : ""
    }</p>
${decisionFacts(r, question, laneWord(entry.run.spec))}
<div class="split">
${
      distributionTable(
        "Predicted and gold distributions, in option order",
        optionOrder([r]),
        [
          { label: "predicted", values: r.predicted, pick: r.answer },
          { label: "gold", values: r.gold_probabilities, pick: null },
        ],
        r.gold ?? "",
        question,
      )
    }
<section aria-labelledby="state-h"><h2 id="state-h">State</h2>${
      stateBlock(c, options.missing)
    }</section>
</div>`,
    {
      crumbs: [
        { label: entry.id, href: runHref(entry.id) },
        { label: "Decisions", href: `${runHref(entry.id)}/decisions` },
        { label: `${r.case} · ${r.question}` },
      ],
      dataset: runDataset(entry.run.spec),
    },
  );
}
