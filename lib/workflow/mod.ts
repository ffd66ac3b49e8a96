/**
 * Workflows: define them (`defineWorkflow` in TypeScript, or JSON and YAML files against the JSON
 * Schema `workflowJsonSchema` generates), load and validate them (`loadWorkflow` also finds the
 * built-in ones by name), select their cases, run them (`runBenchmark`) and compare engines.
 *
 * @module
 */
export type {
  CaseSelection,
  EndpointSpec,
  EndpointSpecInput,
  ReferenceSpec,
  ReferenceSpecInput,
  ThresholdBound,
  ThresholdSpec,
  Workflow,
  WorkflowInput,
} from "./schemas.ts";
export { defineWorkflow } from "./define.ts";
export { type EndpointLimits, withEndpointLimits } from "./overrides.ts";
export {
  loadWorkflow,
  validateWorkflow,
  type ValidateWorkflowOptions,
  WorkflowError,
} from "./load.ts";
export { WORKFLOW_SCHEMA_PATH, workflowJsonSchema } from "./json_schema.ts";
export { loadCases, type LoadCasesOptions, openCases, selectCases } from "./cases.ts";
export {
  describeRun,
  type DescribeRunOptions,
  dryRunRequests,
  type PreparedEndpoint,
  preparedIdentity,
  prepareEndpoint,
  type PrepareEndpointOptions,
  runBenchmark,
  type RunEvent,
  type RunOptions,
  runPrepared,
  type RunResult,
  type RunSelection,
} from "./run.ts";
export { askCacheFor, type CachedEndpoint } from "./request_cache.ts";
export { drawSample, sampleAllocation, type SampleCandidate, type SampleSpec } from "./sample.ts";
export type { Agreement, AgreementRow } from "./agreement.ts";
export {
  compareEngines,
  type CompareEnginesOptions,
  type DryRunEngineRequest,
  dryRunEngines,
  endpointNames,
  type EngineComparison,
  type EngineResult,
} from "./compare_engines.ts";
export { engineComparisonText, type EngineComparisonTextOptions } from "./engines_report.ts";
export {
  arrayCaseSource,
  type CaseDigests,
  caseDigests,
  type CaseSource,
  caseSourceOf,
} from "./case_source.ts";
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
