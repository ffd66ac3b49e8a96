/**
 * The audit module's boundaries: the `audits` field of a workflow file, the transcript file (JSONL
 * of conversations), the labelled-items file of threshold sweeps, and `audit.json` with the lines
 * of `audit.jsonl`. The interfaces below are the public contract (exported from `mod.ts`); each zod
 * schema is the runtime validator of its boundary and is checked against its interfaces at compile
 * time (`_SchemasMatch` at the end), so the two cannot drift.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import { ERROR_KINDS, type ErrorKind } from "../client/mod.ts";
import {
  AUDIT_SETS,
  type AuditSet,
  CHECK_ID_PATTERN,
  checkName,
  EVIDENCE_SCOPES,
  type EvidenceScope,
  UNCLEAR,
} from "../workflow/mod.ts";

// The `audits` field of a workflow file is part of the workflow's schema (lib/workflow); its
// names are re-exported here for the audit module's files.
export { CHECK_ID_PATTERN, checkName, UNCLEAR };
export type {
  AuditCheck,
  AuditSet,
  AuditsSpec,
  AuditsSpecInput,
  EvidenceScope,
  JudgeReference,
  JudgeReferenceInput,
  JudgeSpec,
  JudgeSpecInput,
} from "../workflow/mod.ts";

const AuditSetSchema = z.enum(AUDIT_SETS);
const EvidenceScopeSchema = z.enum(EVIDENCE_SCOPES);
const ErrorKindSchema = z.enum(ERROR_KINDS);

/** One message of a conversation. Only an assistant's `content` is ever sent to a judge. */
export const TranscriptMessageSchema = z.object({
  /** Who wrote it. */
  role: z.enum(["system", "user", "assistant", "tool"]),
  /** Public text (null for a message that only calls tools). */
  content: z.string().nullable(),
  /** Private reasoning: never sent. */
  reasoning: z.string().optional(),
  /** Tool calls: never sent. */
  tool_calls: z.array(z.unknown()).optional(),
}).strict();
/** One message of a conversation. Only an assistant's `content` is ever sent to a judge. */
export interface TranscriptMessage {
  /** Who wrote it. */
  role: "system" | "user" | "assistant" | "tool";
  /** Public text (null for a message that only calls tools). */
  content: string | null;
  /** Private reasoning: never sent. */
  reasoning?: string | undefined;
  /** Tool calls: never sent. */
  tool_calls?: unknown[] | undefined;
}

/** One line of a transcript file. */
export const TranscriptSchema = z.object({
  /** Unique item id. */
  id: z.string().min(1),
  /** Free text for readers (never sent). */
  note: z.string().optional(),
  /** The conversation, in order. */
  messages: z.array(TranscriptMessageSchema),
  /** Deterministic verdict per check name (id without `-vN`): one of the check's options. */
  verdicts: z.record(z.string().min(1), z.string().min(1)),
}).strict();
/** One transcript item: a line of a transcript file. */
export interface Transcript {
  /** Unique item id. */
  id: string;
  /** Free text for readers (never sent). */
  note?: string | undefined;
  /** The conversation, in order. */
  messages: TranscriptMessage[];
  /** Deterministic verdict per check name (id without `-vN`): one of the check's options. */
  verdicts: Record<string, string>;
}

/** Why an audit is unavailable: an endpoint error kind or one of the audit's own reasons. */
export const UnavailableKindSchema = z.enum([
  ...ErrorKindSchema.options,
  "empty_evidence",
  "too_large",
  "deadline",
]);
/**
 * Why an audit is unavailable: an endpoint error kind, or `empty_evidence` (nothing to judge),
 * `too_large` (the request exceeds the size limit) or `deadline` (the call ran out of time).
 */
export type UnavailableKind = ErrorKind | "empty_evidence" | "too_large" | "deadline";

/** Audit outcomes. */
export const AuditOutcomeSchema = z.enum(["agree", "disagree", "abstained", "unavailable"]);
/**
 * An audit outcome: the judge `agree`s or `disagree`s with the verdict, `abstained` (`unclear` or
 * a tie on top), or the audit was `unavailable`.
 */
export type AuditOutcome = "agree" | "disagree" | "abstained" | "unavailable";

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);

/** One line of `audit.jsonl`: one check asked about one transcript item. */
export const AuditRecordSchema = z.object({
  /** Transcript item id. */
  item: z.string(),
  /** Check id (with version). */
  check_id: z.string(),
  /** The check's set. */
  set: AuditSetSchema,
  /** sha256 of the question as sent (check id, scope, instructions with preamble, options). */
  question_sha256: Sha256Schema,
  /** Evidence scope. */
  evidence_scope: EvidenceScopeSchema,
  /** The assistant messages sent (or that would have been sent). */
  evidence: z.array(z.string()),
  /** sha256 of the evidence, null when there is none. */
  evidence_sha256: Sha256Schema.nullable(),
  /** UTF-8 bytes of the request body, null when none was built. */
  request_bytes: z.number().int().nullable(),
  /** The judge: endpoint identity (never credentials), model sent, model the server named. */
  judge: z.object({
    endpoint: z.string(),
    model: z.string(),
    model_reported: z.string().nullable(),
  }).strict(),
  /** The deterministic verdict compared with. */
  verdict: z.string(),
  /** The judge's distribution over the options, or null. */
  probabilities: z.record(z.string(), z.number()).nullable(),
  /** The judge's top option, null when unavailable or tied. */
  choice: z.string().nullable(),
  /** The outcome. */
  outcome: AuditOutcomeSchema,
  /** Why it is unavailable (the kind only), or null. */
  error_kind: UnavailableKindSchema.nullable(),
  /** Wall time of the whole call including retries, ms; null when nothing was sent. */
  elapsed_ms: z.number().nullable(),
  /** Requests made (0 when nothing was sent). */
  attempts: z.number().int().min(0),
  /** True when this verdict was reused from a saved audit. */
  saved: z.boolean(),
  /** The provider's response id, when it reported one. */
  response_id: z.string().nullable(),
}).strict();
/** One line of `audit.jsonl`: one check asked about one transcript item. */
export interface AuditRecord {
  /** Transcript item id. */
  item: string;
  /** Check id (with version). */
  check_id: string;
  /** The check's set. */
  set: AuditSet;
  /** sha256 of the question as sent (check id, scope, instructions with preamble, options). */
  question_sha256: string;
  /** Evidence scope. */
  evidence_scope: EvidenceScope;
  /** The assistant messages sent (or that would have been sent). */
  evidence: string[];
  /** sha256 of the evidence, null when there is none. */
  evidence_sha256: string | null;
  /** UTF-8 bytes of the request body, null when none was built. */
  request_bytes: number | null;
  /** The judge: endpoint identity (never credentials), model sent, model the server named. */
  judge: {
    /** Endpoint identity (never credentials). */
    endpoint: string;
    /** Model name sent. */
    model: string;
    /** Model name the server reported, or null. */
    model_reported: string | null;
  };
  /** The deterministic verdict compared with. */
  verdict: string;
  /** The judge's distribution over the options, or null. */
  probabilities: Record<string, number> | null;
  /** The judge's top option, null when unavailable or tied. */
  choice: string | null;
  /** The outcome. */
  outcome: AuditOutcome;
  /** Why it is unavailable (the kind only), or null. */
  error_kind: UnavailableKind | null;
  /** Wall time of the whole call including retries, ms; null when nothing was sent. */
  elapsed_ms: number | null;
  /** Requests made (0 when nothing was sent). */
  attempts: number;
  /** True when this verdict was reused from a saved audit. */
  saved: boolean;
  /** The provider's response id, when it reported one. */
  response_id: string | null;
}

/** `audit.json`: what an audit ran and how it ended. */
export const AuditMetaSchema = z.object({
  version: z.literal(1),
  tool: z.string(),
  tool_version: z.string(),
  workflow: z.string(),
  workflow_file: z.string().nullable(),
  transcripts: z.string(),
  transcripts_sha256: Sha256Schema,
  set: AuditSetSchema,
  judge: z.object({ endpoint: z.string(), model: z.string() }).strict(),
  checks: z.array(
    z.object({
      id: z.string(),
      set: AuditSetSchema,
      evidence: EvidenceScopeSchema,
      question_sha256: Sha256Schema,
    }).strict(),
  ),
  status: z.enum(["running", "completed", "incomplete", "interrupted"]),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  counts: z.record(AuditOutcomeSchema, z.number().int()),
  stopped: z.string().nullable().optional(),
}).strict();
/** `audit.json`: what an audit ran and how it ended. */
export interface AuditMeta {
  /** Record format version, always 1. */
  version: 1;
  /** Tool that wrote it (`decibench`). */
  tool: string;
  /** Version of that tool. */
  tool_version: string;
  /** Workflow name. */
  workflow: string;
  /** The workflow file, or null when the workflow was given as data. */
  workflow_file: string | null;
  /** The transcript file read. */
  transcripts: string;
  /** sha256 of the transcript file. */
  transcripts_sha256: string;
  /** The set that ran. */
  set: AuditSet;
  /** The judge: endpoint identity (never credentials) and model sent. */
  judge: {
    /** Endpoint identity (never credentials). */
    endpoint: string;
    /** Model name sent. */
    model: string;
  };
  /** The checks asked, in order, with the hash of each question as sent. */
  checks: {
    /** Check id (with version). */
    id: string;
    /** The check's set. */
    set: AuditSet;
    /** Evidence scope. */
    evidence: EvidenceScope;
    /** sha256 of the question as sent. */
    question_sha256: string;
  }[];
  /**
   * `running` while it runs, then how it ended: `incomplete` when the judge failed some calls
   * (they are asked again on resume) or the audit stopped early.
   */
  status: "running" | "completed" | "incomplete" | "interrupted";
  /** When the audit first started (ISO 8601). */
  started_at: string;
  /** When it ended (ISO 8601), null while running. */
  finished_at: string | null;
  /** Number of audits per outcome. */
  counts: Record<AuditOutcome, number>;
  /** Why the audit stopped before asking everything (a dead or wrong judge), or null. */
  stopped?: string | null | undefined;
}

/** One labelled yes/no item of a threshold sweep (a line of a labels file). */
export const LabelledItemSchema = z.object({
  /** Item id (unique within its lane). */
  id: z.string().min(1),
  /** Lane: a workflow/question or any grouping that should get its own bar. */
  lane: z.string().min(1),
  /** P(yes) as the model returned it. */
  p_yes: z.number().min(0).max(1),
  /** True when the item should pass (`true`/`false` or 1/0). */
  label: z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => v === true || v === 1),
}).strict();
/** A labelled yes/no item, with its label read as a boolean. */
export interface LabelledItem {
  /** Item id (unique within its lane). */
  id: string;
  /** Lane: a workflow/question or any grouping that should get its own bar. */
  lane: string;
  /** P(yes) as the model returned it, in [0, 1]. */
  p_yes: number;
  /** True when the item should pass (written `true`/`false` or 1/0). */
  label: boolean;
}

/** Each schema's parsed type (and written type, where defaults apply) equals its interface. */
type _SchemasMatch = [
  Assert<Equals<z.infer<typeof TranscriptMessageSchema>, TranscriptMessage>>,
  Assert<Equals<z.infer<typeof TranscriptSchema>, Transcript>>,
  Assert<Equals<z.infer<typeof UnavailableKindSchema>, UnavailableKind>>,
  Assert<Equals<z.infer<typeof AuditOutcomeSchema>, AuditOutcome>>,
  Assert<Equals<z.infer<typeof AuditRecordSchema>, AuditRecord>>,
  Assert<Equals<z.infer<typeof AuditMetaSchema>, AuditMeta>>,
  Assert<Equals<z.output<typeof LabelledItemSchema>, LabelledItem>>,
];
