/**
 * Run records: the decision and run schemas, the run directory writer and reader, the
 * fingerprint, what `--resume` checks and keeps, and the SQLite index of all runs.
 *
 * @module
 */
export type {
  DecisionRecord,
  RunJson,
  RunSession,
  RunSpec,
  RunStability,
  ThresholdResult,
} from "./schemas.ts";
export { RUN_JSON_VERSION } from "./schemas.ts";
export * from "./decisions.ts";
export * from "./repeats.ts";
export * from "./recorder.ts";
export * from "./lines.ts";
export type { AnsweredCase, CaseAsked, RunSink } from "./sink.ts";
export * from "./fingerprint.ts";
export * from "./load.ts";
export * from "./resume.ts";
export * from "./sqlite_index.ts";
export * from "./fs_errors.ts";
export * from "./resume_command.ts";
export * from "./run_dir.ts";
export * from "./run_id.ts";
