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
export * from "./agreement.ts";
export * from "./compare_engines.ts";
