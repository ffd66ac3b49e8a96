/**
 * Reports: terminal text, Markdown, self-contained HTML with Observable Plot charts, and the
 * paired comparison of two runs.
 *
 * @module
 */
export * from "./format.ts";
export * from "./tables.ts";
export * from "./errors.ts";
export * from "./model.ts";
export * from "./terminal.ts";
export * from "./markdown.ts";
export * from "./charts.ts";
export * from "./html.ts";
export * from "./compare.ts";
export * from "./compare_report.ts";
export * from "./write.ts";
export * from "./warnings.ts";
export * from "./protocol.ts";
export * from "./calibration.ts";
export * from "./calibration_tables.ts";
export * from "./risk_coverage_chart.ts";
