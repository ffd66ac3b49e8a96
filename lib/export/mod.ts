/**
 * Exports: a run in the formats the field shares — the Hugging Face Hub's
 * `.eval_results/*.yaml` (the Typed Decisions leaderboard's submission file), Every Eval Ever's
 * aggregate and instance-level schema, and CSV — each checked against its vendored schema before
 * it is written. Also the one place that reads metric values out of a run summary of either
 * record version (`metricOf`).
 *
 * @example
 * ```ts ignore
 * import { loadRun } from "../record/mod.ts";
 * import { exportFormat, writeExport } from "./mod.ts";
 * const loaded = await loadRun("runs/<run-id>");
 * const result = await exportFormat("csv")!.build(loaded, {});
 * await writeExport(result, loaded.dir); // runs/<run-id>/export/decisions.csv
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./summary_values.ts";
export * from "./card_protocol.ts";
export * from "./validate.ts";
export * from "./eval_results.ts";
export * from "./every_eval_ever.ts";
export * from "./csv.ts";
export * from "./formats.ts";
export * from "./write.ts";
