/**
 * Writes a run's report files (`report.md`, `report.html`) into its directory.
 *
 * @module
 */
import { join } from "node:path";
import type { Case, DatasetInfo } from "../dataset/mod.ts";
import { type DecisionRecord, inCaseOrder, type RunJson, writeAtomic } from "../record/mod.ts";
import { markdownReport } from "./markdown.ts";
import { buildReport, type RunReport } from "./model.ts";

/** What a report needs from a run. */
export interface ReportInput {
  /** Run directory. */
  dir: string;
  /** The run record. */
  run: RunJson;
  /** Its decisions. */
  records: readonly DecisionRecord[];
  /** Dataset info and cases (for state previews). */
  dataset: { info: DatasetInfo; cases: readonly Case[] };
  /** The report model, when already computed. @default buildReport(run, records, info) */
  report?: RunReport | undefined;
  /** Cases' trace lines for `report.md`, already rendered (`MarkdownOptions.traces`). */
  traces?: ReadonlyMap<string, string> | undefined;
}

/**
 * Writes `report.md` and the self-contained `report.html` for a run (each atomically). The HTML
 * renderer is imported on first use: it pulls in Observable Plot and linkedom, which nothing else
 * needs, so a run does not load them before its first request.
 *
 * @param input The run (and its report model, when already computed).
 * @returns The paths written (`report.md`, then `report.html`) and the report model used.
 */
export async function writeReports(
  input: ReportInput,
): Promise<{ paths: string[]; report: RunReport }> {
  const report = input.report ?? buildReport(input.run, input.records, input.dataset.info);
  const asked = new Set(input.records.map((r) => r.case));
  const states: Record<string, unknown> = {};
  for (const c of input.dataset.cases) if (asked.has(c.id)) states[c.id] = c.state;
  const md = join(input.dir, "report.md");
  const html = join(input.dir, "report.html");
  await writeAtomic(
    md,
    markdownReport(report, { records: inCaseOrder(input.records), states, traces: input.traces }),
  );
  const { htmlReport } = await import("./html.ts");
  await writeAtomic(html, htmlReport(report));
  return { paths: [md, html], report };
}
