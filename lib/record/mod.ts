/**
 * Run records: the decision and run schemas, the run directory writer and reader, the
 * fingerprint, what `--resume` checks and keeps, and the SQLite index of all runs.
 *
 * @module
 */
export {
  type DecisionRecord,
  RUN_JSON_VERSION,
  type RunJson,
  type RunSession,
  type RunSpec,
  type RunStability,
  type ThresholdResult,
} from "./schemas.ts";
export { decisionRecords, type DecisionRecordsOptions } from "./decisions.ts";
export { type RepeatRecord, RepeatsWriter } from "./repeats.ts";
export { readDecisions, RunRecorder, writeAtomic } from "./recorder.ts";
export {
  type DecisionLine,
  inCaseOrder,
  readDecisionLines,
  readJsonLineStream,
  readTextLines,
  type TextLine,
} from "./lines.ts";
export type { AnsweredCase, CaseAsked, RunSink } from "./sink.ts";
export type { RunPolicy, RunPolicyLane, RunPolicySink, RunPolicyVerdicts } from "./run_policy.ts";
export { fingerprint, type FingerprintInput, sha256Hex } from "./fingerprint.ts";
export {
  findRun,
  type LoadedRun,
  loadRun,
  type OpenedRun,
  openRun,
  resolveRunDir,
  upgradeRunJson,
} from "./load.ts";
export {
  answeredCases,
  compactDecisions,
  KeptDecisions,
  ResumeMismatchError,
  scanDecisions,
  type ScannedDecisions,
  type SpecDifference,
  specDifferences,
  type SpecDifferencesOptions,
} from "./resume.ts";
export {
  addIndexedDecisions,
  beginIndexedRun,
  checkIndexFile,
  decisionFromRow,
  DEFAULT_INDEX_PATH,
  type IndexedClassRow,
  type IndexedRun,
  indexRun,
  type IndexRunOptions,
  IndexSchemaError,
  listRuns,
  type ListRunsOptions,
  openIndex,
  type OpenIndexOptions,
  runClasses,
  runDecisions,
  type RunIndex,
  updateIndexedRun,
} from "./sqlite_index.ts";
export { describeOsError, fsErrorMessage, type FsErrorMessageOptions } from "./fs_errors.ts";
export {
  resumeCommand,
  type ResumeCommandOptions,
  shellQuote,
  writeFailure,
} from "./resume_command.ts";
export { lockRunDir, type LockRunDirOptions, RunDirError, type RunDirLock } from "./run_dir.ts";
export { runId } from "./run_id.ts";
