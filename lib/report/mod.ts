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
export {
  interval,
  metricInterval,
  metricText,
  num,
  pct,
  table,
  type TableOptions,
} from "./format.ts";
export { breakdownData, type TableData } from "./tables.ts";
export {
  CLASSES_NOTE,
  classesHtml,
  classesMarkdown,
  classesTerminal,
  classHeading,
  classOverviewData,
  classSummaryText,
  confusionData,
  laneClassData,
  perClassData,
} from "./classes.ts";
export { errorKindData, type ErrorKindRow, errorsByKind } from "./errors.ts";
export {
  buildReport,
  type BuildReportOptions,
  type ChartPoint,
  type DisagreementRow,
  DISAGREEMENTS_KEPT,
  loadRunReport,
  REPORT_JSON_FILE,
  REPORT_JSON_VERSION,
  ReportAccumulator,
  type ReportAccumulatorOptions,
  type ReportSample,
  type RunReport,
  SAMPLE_DECISIONS,
  WARNING_KINDS_KEPT,
  type WarningRow,
} from "./model.ts";
export { terminalReport } from "./terminal.ts";
export { policyData, policyLaneVerdict, policyRateName, type PolicySection } from "./policy.ts";
export {
  type CiCheck,
  type CiSuite,
  ciSummaryMarkdown,
  githubAnnotations,
  githubOutputOn,
  junitXml,
  policyChecks,
  thresholdCheckName,
  thresholdChecks,
  thresholdMessage,
  writeCiReports,
  type WriteCiReportsOptions,
} from "./ci.ts";
export {
  caseTrace,
  type MarkdownOptions,
  markdownReport,
  markdownSections,
  statePreview,
} from "./markdown.ts";
export {
  type ComparedRun,
  compareRuns,
  type CompareRunsOptions,
  type RunComparison,
} from "./compare.ts";
export { comparisonReport, type ComparisonReportOptions, formatPValue } from "./compare_report.ts";
export { type ReportInput, writeReports } from "./write.ts";
export {
  type CalibrationTables,
  calibrationTables,
  type MurphyData,
  type TemperatureData,
} from "./calibration_tables.ts";
export { ReportSink, TRACE_PART_FILE } from "./report_sink.ts";
export { laneWord, NO_RATING, protocolNote, runRating, thresholdName } from "./protocol.ts";
