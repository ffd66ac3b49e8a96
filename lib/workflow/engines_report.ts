/**
 * Renders an engine comparison side by side, as terminal text or Markdown (`comparison.md`):
 * metrics with intervals per engine, the paired accuracy difference against the first engine,
 * agreement of predicted answers (overall and per question), latency, tokens and cost per engine,
 * and the calibration caveat.
 *
 * @module
 */
import type { EngineComparison } from "./compare_engines.ts";
import { formatPValue, interval, metricInterval, metricText, pct, table } from "../report/mod.ts";
import { COLUMN_METRICS } from "../metrics/mod.ts";

/** Options of {@linkcode engineComparisonText}. */
export interface EngineComparisonTextOptions {
  /** Markdown (`comparison.md`) instead of terminal text. @default false */
  markdown?: boolean | undefined;
}

function points(v: number | null): string {
  if (v === null) return "n/a";
  const text = (v * 100).toFixed(1);
  return `${v >= 0 && text !== "0.0" ? "+" : ""}${text === "-0.0" ? "0.0" : text}`;
}

function ms(v: number | undefined): string {
  return v === undefined ? "n/a" : v.toFixed(1);
}

/**
 * The side-by-side comparison of engines.
 *
 * @param c The comparison (`compareEngines`).
 * @param options Markdown or text.
 * @returns The report text.
 * @example
 * ```ts ignore
 * import { compareEngines, engineComparisonText, loadWorkflow } from "../../mod.ts";
 * const c = await compareEngines(await loadWorkflow("workflows/compare-engines.ts"), { limit: 20 });
 * console.log(engineComparisonText(c));
 * ```
 */
export function engineComparisonText(
  c: EngineComparison,
  options: EngineComparisonTextOptions = {},
): string {
  const md = options.markdown === true;
  const t = md ? { markdown: true } : {};
  const heading = (text: string): string => (md ? `\n## ${text}\n` : `\n${text}`);
  const out: string[] = [];
  const head = `${c.workflow} · ${c.cases} cases × ${c.engines.length} engines${
    c.interrupted ? " · INTERRUPTED (not every engine finished)" : ""
  }`;
  out.push(md ? `# decibench engine comparison\n\n${head}` : `decibench engines · ${head}`);

  out.push(heading("Metrics per engine (95% bootstrap intervals, resampling cases)"));
  out.push(table(
    [
      "engine",
      "wire",
      "calibrated",
      "status",
      ...COLUMN_METRICS.flatMap((m) => [m.short ?? m.label, "95% CI"]),
      "errors",
    ],
    c.engines.map((e) => [
      e.name,
      e.engine,
      e.calibrated ? "yes" : "no",
      e.status,
      ...COLUMN_METRICS.flatMap((m) => [
        // ECE compares calibration: starred for an uncalibrated engine.
        metricText(m, e.summary.metrics[m.name]) + (m.name === "ece" && !e.calibrated ? "*" : ""),
        metricInterval(m, e.summary.intervals[m.name]),
      ]),
      String(e.summary.errors),
    ]),
    { ...t, right: Array.from({ length: 2 * COLUMN_METRICS.length + 1 }, (_, i) => i + 4) },
  ));
  const first = c.engines[0];
  const others = c.engines.slice(1).filter((e) => e.versusFirst);
  if (first && others.length) {
    out.push(heading(`Accuracy against ${first.name} (paired, same decisions)`));
    out.push(table(
      [
        "engine",
        "Δ accuracy (pts)",
        "95% CI",
        `only ${first.name} right`,
        "only this right",
        "McNemar p",
      ],
      others.map((e) => {
        const v = e.versusFirst!;
        return [
          e.name,
          points(v.difference),
          v.interval ? `[${points(v.interval[0])}, ${points(v.interval[1])}]` : "",
          String(v.mcnemar.onlyA),
          String(v.mcnemar.onlyB),
          formatPValue(v.pValue),
        ];
      }),
      t,
    ));
  }

  out.push(heading("Latency, tokens and cost per engine"));
  out.push(table(
    ["engine", "model", "answered by", "p50 ms", "p95 ms", "input tokens", "per case", "cost"],
    c.engines.map((e) => {
      const tokens = e.summary.inputTokens;
      return [
        e.name,
        e.model,
        e.modelReported ?? "n/a",
        ms(e.summary.latency?.p50),
        ms(e.summary.latency?.p95),
        tokens === null ? "n/a" : String(tokens),
        tokens === null || e.summary.cases === 0 ? "n/a" : (tokens / e.summary.cases).toFixed(1),
        e.cost === null ? "n/a" : `$${e.cost.toFixed(6)}`,
      ];
    }),
    { ...t, right: [3, 4, 5, 6, 7] },
  ));

  const a = c.agreement;
  out.push(heading("Agreement of predicted answers"));
  if (a === null) {
    out.push("n/a: fewer than two engines ran");
  } else {
    out.push(
      `all engines agree on ${a.overall.agree} of ${a.overall.n} decisions every engine answered (${
        pct(a.overall.rate)
      }${a.interval ? ` ${interval(a.interval, true)}` : ""})${
        a.excluded ? `; ${a.excluded} decisions left out (an engine has an error)` : ""
      }`,
    );
    if (a.pairs.length) {
      out.push(
        "",
        table(
          ["pair", "n", "agree", "rate"],
          a.pairs.map((r) => [r.key, String(r.n), String(r.agree), pct(r.rate)]),
          t,
        ),
      );
    }
    out.push(
      md ? "\n### Per question\n" : "\nper question",
      table(
        ["question", "n", "agree", "rate"],
        a.byQuestion.map((r) => [r.key, String(r.n), String(r.agree), pct(r.rate)]),
        t,
      ),
    );
  }

  out.push(heading("Calibration"));
  out.push(
    c.caveat === null
      ? "Every engine is calibrated: confidences and ECE compare across them."
      : `* ${c.caveat}.`,
  );
  out.push(heading("Runs"));
  const stopped = c.engines.some((e) => e.fatal !== null);
  out.push(table(
    ["engine", "run directory", ...(stopped ? ["stopped by"] : [])],
    c.engines.map((e) => [e.name, e.dir, ...(stopped ? [e.fatal ?? ""] : [])]),
    { ...t, right: [] },
  ));
  out.push(md ? "" : `\ncomparison  ${c.dir}/comparison.json`);
  return out.join("\n");
}
