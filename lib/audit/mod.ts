/**
 * Audits, gates and thresholds: judge audits of assistant text against deterministic
 * verdicts, the decision gate (one yes/no question per item, "undecided" on error), and threshold
 * sweeps with exact false-pass bounds per lane.
 *
 * @example
 * ```ts
 * import { clopperPearsonUpper, thresholdSweep } from "./mod.ts";
 * const items = [
 *   { id: "a", lane: "w/q", p_yes: 0.9, label: true },
 *   { id: "b", lane: "w/q", p_yes: 0.3, label: false },
 * ];
 * thresholdSweep(items, { seed: 0 }).overall.curve.length; // 101 bars
 * clopperPearsonUpper(0, 53); // ≈ 0.0549
 * ```
 *
 * @module
 */
export type {
  AuditCheck,
  AuditMeta,
  AuditOutcome,
  AuditRecord,
  AuditSet,
  LabelledItem,
  UnavailableKind,
} from "./schemas.ts";
export { judgeQuestion, questionSha256 } from "./checks.ts";
export {
  askJudge,
  type AskJudgeOptions,
  JUDGE_DEADLINE_MS,
  type JudgeCall,
  type JudgeRequest,
  MAX_JUDGE_REQUEST_BYTES,
  type PreparedJudge,
  prepareJudge,
  type PrepareJudgeOptions,
} from "./judge.ts";
export { OUTCOME_ORDER } from "./report.ts";
export {
  type AuditEvent,
  type AuditResult,
  judgeFailed,
  runAudit,
  type RunAuditOptions,
} from "./run_audit.ts";
export {
  decisionGate,
  type DecisionGateOptions,
  DEFAULT_GATE_THRESHOLD,
  type GateEndpoint,
  type GateItem,
  type GateProvenance,
  type GateResult,
} from "./gate.ts";
export {
  type GateLane,
  type GateRecord,
  type GateRecordProvenance,
  gateTableData,
} from "./gate_report.ts";
export { gateLaneChecks } from "./gate_ci.ts";
export { type GateRun, type GateRunResult, runGate, type RunGateOptions } from "./gate_run.ts";
export { gateMismatch, readSavedGate, type SavedGate } from "./gate_resume.ts";
export { type ClopperPearsonOptions, clopperPearsonUpper } from "./binomial.ts";
export {
  binomialPValue,
  clopperPearsonLower,
  learnThenTest,
  type LttCandidate,
  neededTrials,
} from "./ltt.ts";
export {
  checkCosts,
  choosePolicy,
  type ChoosePolicyOptions,
  type LaneParts,
  POLICY_BARS,
  type PolicyItem,
  splitPolicyItems,
} from "./policy.ts";
export {
  calibrate,
  decideWithPolicy,
  ESCALATE,
  expectedCost,
  type GatePolicy,
  type PolicyDecision,
} from "./policy_apply.ts";
export {
  checkPolicy,
  checkPolicyQuestion,
  PolicyChecker,
  type PolicyCheckInput,
  type PolicyCheckLane,
} from "./policy_check.ts";
export {
  checkRunPolicy,
  PolicyRunSink,
  policyRunSink,
  policySection,
  readPolicy,
} from "./policy_run.ts";
export {
  parsePolicy,
  type Policy,
  POLICY_OBJECTIVES,
  POLICY_SCHEMA_PATH,
  POLICY_VERSION,
  type PolicyBeforeAfter,
  type PolicyCalibration,
  type PolicyFigure,
  type PolicyHeldout,
  policyJsonSchema,
  policyJsonSchemaText,
  type PolicyLane,
  type PolicyObjective,
} from "./policy_schema.ts";
export {
  type CurvePoint,
  type CurveRow,
  type LaneSweep,
  sweepCurveRows,
  type SweepMetrics,
  type SweepResult,
  thresholdSweep,
  type ThresholdSweepOptions,
} from "./sweep.ts";
export {
  itemsFromDecisions,
  itemsFromDecisionStream,
  type LabelsFile,
  type NoulDecisionInput,
  parseLabels,
  readLabelledItems,
  readLabels,
} from "./labelled.ts";
export {
  curveTable,
  type CurveTableOptions,
  sweepTable,
  type SweepTableOptions,
} from "./sweep_report.ts";
