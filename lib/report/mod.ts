/**
 * Reports: terminal text, Markdown, self-contained HTML with Observable Plot charts, and the
 * paired comparison of two runs.
 *
 * The HTML renderer (`html.ts`) is not re-exported here: it draws with `lib/charts` (Observable
 * Plot, linkedom), which only `report.html` needs, so `writeReports` imports it on first use and a
 * run loads no charting library before its first request. The root `mod.ts` offers `htmlReport`.
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
export * from "./protocol.ts";
export * from "./calibration.ts";
export * from "./calibration_tables.ts";
export * from "./run_worker.ts";
export * from "./report_sink.ts";
