/**
 * Workflows: define, load and run them.
 *
 * @module
 */
export type {
  CaseSelection,
  EndpointSpec,
  EndpointSpecInput,
  EngineName,
  ReferenceSpec,
  ReferenceSpecInput,
  ThresholdBound,
  ThresholdSpec,
  Workflow,
  WorkflowInput,
} from "./schemas.ts";
export { THRESHOLD_BOUNDS } from "./schemas.ts";
export * from "./define.ts";
export * from "./load.ts";
export * from "./cases.ts";
export * from "./thresholds.ts";
export * from "./run.ts";
export * from "./case_source.ts";
export * from "./agreement.ts";
export * from "./compare_engines.ts";
export * from "./engines_report.ts";
export {
  AUDIT_SETS,
  type AuditCheck,
  type AuditSet,
  type AuditsSpec,
  type AuditsSpecInput,
  CHECK_ID_PATTERN,
  checkName,
  EVIDENCE_SCOPES,
  type EvidenceScope,
  type JudgeReference,
  type JudgeReferenceInput,
  type JudgeSpec,
  type JudgeSpecInput,
  UNCLEAR,
} from "./audits_spec.ts";
