/**
 * Writes a run's report files (`report.md`, `report.html`) into its directory.
 *
 * @module
 */
import { join } from "node:path";
import type { DatasetInfo } from "../dataset/mod.ts";
import type { Case } from "../dataset/schemas.ts";
import type { DecisionRecord, RunJson } from "../record/schemas.ts";
import { writeAtomic } from "../record/recorder.ts";
import { markdownReport } from "./markdown.ts";

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
}

/**
 * Writes `report.md` and the self-contained `report.html` for a run (each atomically). The HTML
 * renderer is imported on first use: it pulls in Observable Plot and linkedom, which nothing else
 * needs, so a run does not load them before its first request.
 *
 * @param input The run.
 * @returns Paths written: `report.md`, then `report.html`.
 */
export async function writeReports(input: ReportInput): Promise<string[]> {
  const asked = new Set(input.records.map((r) => r.case));
  const states: Record<string, unknown> = {};
  for (const c of input.dataset.cases) if (asked.has(c.id)) states[c.id] = c.state;
  const md = join(input.dir, "report.md");
  await writeAtomic(md, markdownReport(input.run, input.records, input.dataset.info, { states }));
  const { htmlReport } = await import("./html.ts");
  const html = join(input.dir, "report.html");
  await writeAtomic(html, htmlReport(input.run, input.records, input.dataset.info));
  return [md, html];
}
