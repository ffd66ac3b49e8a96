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
export {
  type AuditCheck,
  type AuditMeta,
  type AuditOutcome,
  type AuditRecord,
  type AuditSet,
  type AuditsSpec,
  type AuditsSpecInput,
  CHECK_ID_PATTERN,
  checkName,
  type EvidenceScope,
  type JudgeReference,
  type JudgeReferenceInput,
  type JudgeSpec,
  type JudgeSpecInput,
  type LabelledItem,
  type Transcript,
  type TranscriptMessage,
  type UnavailableKind,
  UNCLEAR,
} from "./schemas.ts";
export * from "./checks.ts";
export * from "./evidence.ts";
export * from "./transcripts.ts";
export * from "./outcome.ts";
export * from "./judge.ts";
export * from "./saved.ts";
export * from "./report.ts";
export * from "./run_audit.ts";
export * from "./gate.ts";
export * from "./gate_report.ts";
export * from "./gate_run.ts";
export * from "./binomial.ts";
export * from "./sweep.ts";
export * from "./labelled.ts";
export * from "./sweep_report.ts";
