/**
 * Renders a paired comparison of two runs as terminal text or Markdown (`compare.md`).
 *
 * @module
 */
import { COLUMN_METRICS, type PairedRow } from "../metrics/mod.ts";
import type { ComparedRun, RunComparison } from "./compare.ts";
import { metricInterval, metricText, pct, table } from "./format.ts";

/** Options for `comparisonReport`. */
export interface ComparisonReportOptions {
  /** Markdown (`compare.md`) instead of terminal text. @default false */
  markdown?: boolean | undefined;
}

/**
 * Formats a p-value: three decimals, scientific below 0.001, and "< 1e-300" where the exact value
 * underflows (thousands of discordant pairs all one way).
 *
 * @param p The p-value.
 * @returns e.g. "0.021", "3.2e-7" or "< 1e-300".
 */
export function formatPValue(p: number): string {
  if (!(p >= 1e-300)) return "< 1e-300";
  if (p < 0.001) return p.toExponential(1);
  return p.toFixed(3);
}

function points(v: number | null): string {
  if (v === null) return "n/a";
  const text = (v * 100).toFixed(1);
  return `${v >= 0 && text !== "0.0" ? "+" : ""}${text === "-0.0" ? "0.0" : text}`;
}

function describe(r: ComparedRun): string {
  const reported = r.modelReported && r.modelReported !== r.spec.model
    ? ` (answered by ${r.modelReported})`
    : "";
  return `${r.id} · ${r.spec.endpoint} (${r.spec.engine}) · model ${r.spec.model}${reported} · ${r.status}`;
}

function pairedRows(rows: readonly PairedRow[], markdown: boolean, title: string): string {
  return table(
    [title, "n", "A", "B", "B − A (points)", "only A right", "only B right", "McNemar p"],
    rows.map((r) => [
      r.key,
      String(r.n),
      pct(r.accuracyA),
      pct(r.accuracyB),
      points(r.difference),
      String(r.onlyA),
      String(r.onlyB),
      formatPValue(r.pValue),
    ]),
    markdown ? { markdown: true } : {},
  );
}

/**
 * Renders a comparison: both runs, their metrics on the shared decisions with intervals, the
 * accuracy difference with its paired bootstrap interval, McNemar counts with the exact p-value,
 * and the per-workflow and per-question rows.
 *
 * @param c The comparison (`compareRuns`).
 * @param options Markdown or text.
 * @returns The report text.
 */
export function comparisonReport(c: RunComparison, options: ComparisonReportOptions = {}): string {
  const md = options.markdown === true;
  const p = c.paired;
  const sa = c.a.summary;
  const sb = c.b.summary;
  const out: string[] = [];
  const head = `${p.shared} shared decisions in ${p.sharedCases} cases · ${c.dataset} revision ${
    c.revision.slice(0, 7)
  }`;
  out.push(md ? `# decibench comparison\n\n${head}\n` : `decibench compare · ${head}`);
  out.push(
    md
      ? table(["", "run"], [["A", describe(c.a)], ["B", describe(c.b)]], {
        markdown: true,
        right: [],
      })
      : `A  ${describe(c.a)}\nB  ${describe(c.b)}`,
  );
  if (p.onlyInA || p.onlyInB) {
    out.push(
      `${
        md ? "\n" : ""
      }Not compared: ${p.onlyInA} decisions only A holds, ${p.onlyInB} only B holds.`,
    );
  }
  if (c.differences.length) {
    out.push(
      `${md ? "\n" : ""}What differs: ${
        c.differences.map((d) => `${d.field} "${d.a}" vs "${d.b}"`).join("; ")
      }.`,
    );
  }
  out.push(md ? "\n## Metrics on the shared decisions\n" : "");
  out.push(
    table(["metric", "A", "A 95% CI", "B", "B 95% CI"], [
      ...COLUMN_METRICS.map((m) => [
        m.label,
        metricText(m, sa.metrics[m.name]),
        metricInterval(m, sa.intervals[m.name]),
        metricText(m, sb.metrics[m.name]),
        metricInterval(m, sb.intervals[m.name]),
      ]),
      ["errors", String(sa.errors), "", String(sb.errors), ""],
    ], md ? { markdown: true } : {}),
  );
  const ci = p.interval
    ? ` [${points(p.interval[0])}, ${
      points(p.interval[1])
    }] (paired bootstrap 95%, resampling cases)`
    : "";
  const m = p.mcnemar;
  const lines = [
    `accuracy difference (B − A): ${points(p.difference)} points${ci}`,
    `McNemar: only A right ${m.onlyA}, only B right ${m.onlyB} (both right ${m.both}, both wrong ${m.neither}); exact p ${
      p.pValue >= 1e-300 ? "= " : ""
    }${formatPValue(p.pValue)}`,
  ];
  out.push(
    md
      ? `\n## Paired difference\n\n${lines.map((l) => `- ${l}`).join("\n")}\n`
      : `\n${lines.join("\n")}`,
  );
  out.push(md ? "## By workflow\n" : "\nBy workflow");
  out.push(pairedRows(p.byWorkflow, md, "workflow"));
  out.push(md ? "\n## By question\n" : "\nBy question");
  out.push(pairedRows(p.byQuestion, md, "question"));
  out.push(
    md
      ? "\nErrors count as wrong. ECE is the standard 10-bin top-label ECE, not the dataset card's. " +
        "McNemar's exact test is two-sided on the discordant decisions.\n"
      : "",
  );
  return out.join("\n");
}
