/**
 * Exports: a run in the formats the field shares — the Hugging Face Hub's
 * `.eval_results/*.yaml` (the Typed Decisions leaderboard's submission file), Every Eval Ever's
 * aggregate and instance-level schema, and CSV — each checked against its vendored schema before
 * it is written. Also the one place that reads metric values out of a run summary of either
 * record version (`metricOf`).
 *
 * @example
 * ```ts ignore
 * import { openRun } from "../record/mod.ts";
 * import { exportFormat, writeExport } from "./mod.ts";
 * const loaded = await openRun("runs/<run-id>");
 * const result = await exportFormat("csv")!.build(loaded, {});
 * await writeExport(result, loaded.dir); // runs/<run-id>/export/decisions.csv
 * ```
 *
 * @module
 */
export {
  EXPORT_FORMAT_NAMES,
  type ExportFile,
  type ExportFormatName,
  type ExportInput,
  type ExportOptions,
  type ExportResult,
  fileText,
  textFile,
} from "./types.ts";
export {
  countOf,
  intervalOf,
  metricOf,
  SUMMARY_METRICS,
  type SummaryLike,
} from "./summary_values.ts";
export { CSV_COLUMNS } from "./csv.ts";
export {
  exportParquet,
  PARQUET_COLUMNS,
  PARQUET_ROW_GROUP_ROWS,
  type ParquetExportOptions,
} from "./parquet.ts";
export { EXPORT_FORMAT_REGISTRY, type ExportFormat, exportFormat } from "./formats.ts";
export { writeExport, type WriteExportOptions } from "./write.ts";
export {
  SOURCE_EVERY_EVAL_EVER,
  TRAIN_SPLIT_PREDICTORS,
  trainSplitPredictor,
} from "./eval_results.ts";
export {
  EVALUATOR_RELATIONSHIPS,
  type EvaluatorRelationship,
  MODEL_AVAILABILITIES,
  type ModelAvailability,
} from "./_eee_provenance.ts";
