/**
 * Reports: terminal text, Markdown, self-contained HTML with Observable Plot charts, and the
 * paired comparison of two runs.
 *
 * The HTML renderer and its charts (`html.ts`, `charts.ts`) are not re-exported here: they pull
 * in Observable Plot and linkedom, which only `report.html` needs, so `writeReports` loads them
 * on first use. Import them from `lib/report/html.ts` and `lib/report/charts.ts` directly.
 *
 * @module
 */
export * from "./format.ts";
export * from "./tables.ts";
export * from "./errors.ts";
export * from "./model.ts";
export * from "./terminal.ts";
export * from "./markdown.ts";
export * from "./compare.ts";
export * from "./compare_report.ts";
export * from "./write.ts";
export * from "./warnings.ts";
export * from "./calibration.ts";
export * from "./calibration_tables.ts";
