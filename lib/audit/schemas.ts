/**
 * The audit module's boundaries: the `audits` field of a workflow file, the transcript file (JSONL
 * of conversations), the labelled-items file of threshold sweeps, and `audit.json` with the lines
 * of `audit.jsonl`. The interfaces below are the public contract (exported from `mod.ts`); each zod
 * schema is the runtime validator of its boundary and is checked against its interfaces at compile
 * time (`_SchemasMatch` at the end), so the two cannot drift.
 *
 * @module
 */
import { z } from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import { type ErrorKind, ErrorKindSchema } from "../record/schemas.ts";

/** The option every judge question must offer: the judge cannot tell. */
export const UNCLEAR = "unclear";

/** A check id: lowercase words joined by `-` or `_`, ending in a version suffix `-vN`. */
export const CHECK_ID_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]*-v[1-9][0-9]*$/;

/** Audit sets: `recommended` checks run in both; `all` adds the checks marked `all`. */
export const AuditSetSchema = z.enum(["recommended", "all"]);
/** An audit set: `recommended` checks run in both; `all` adds the checks marked `all`. */
export type AuditSet = "recommended" | "all";

/**
 * Evidence scopes: `messages` sends every public assistant message (so an earlier claim that a
 * later message contradicts still counts); `final_answer` sends only the last one.
 */
export const EvidenceScopeSchema = z.enum(["messages", "final_answer"]);
/**
 * An evidence scope: `messages` (every public assistant message) or `final_answer` (the last
 * one).
 */
export type EvidenceScope = "messages" | "final_answer";

const OptionNameSchema = z.string().regex(
  /^[a-z][a-z0-9_]*$/,
  "must be a lowercase option name such as claims_refund",
);

/** One versioned check: a judge question about assistant text. */
export const AuditCheckSchema = z.object({
  /** Check id with a version suffix, e.g. `refund-claim-v1`; bump the version when the question changes. */
  id: z.string().regex(CHECK_ID_PATTERN, 'must end in a version suffix such as "-v1"'),
  /** The set it belongs to. */
  set: AuditSetSchema,
  /** What the judge sees. */
  evidence: EvidenceScopeSchema,
  /** The question asked of the judge (the evidence-not-instructions preamble is added). */
  instructions: z.string().min(1),
  /** Option name → description, in the order sent; must include `unclear`. */
  options: z.record(OptionNameSchema, z.string().min(1)),
  /** One line on what the check is for (reports only). */
  description: z.string().optional(),
}).strict().superRefine((check, ctx) => {
  const names = Object.keys(check.options);
  if (!names.includes(UNCLEAR)) {
    ctx.addIssue({
      code: "custom",
      path: ["options"],
      message: `must include an "${UNCLEAR}" option`,
    });
  }
  if (names.filter((n) => n !== UNCLEAR).length < 2) {
    ctx.addIssue({
      code: "custom",
      path: ["options"],
      message: `needs at least two options besides "${UNCLEAR}"`,
    });
  }
});
/** One versioned check as written in a workflow file: a judge question about assistant text. */
export interface AuditCheck {
  /**
   * Check id with a version suffix, e.g. `refund-claim-v1`; bump the version when the question
   * changes.
   */
  id: string;
  /** The set it belongs to. */
  set: AuditSet;
  /** What the judge sees. */
  evidence: EvidenceScope;
  /** The question asked of the judge (the evidence-not-instructions preamble is added). */
  instructions: string;
  /**
   * Option name (lowercase, e.g. `claims_refund`) → description, in the order sent; must include
   * `unclear` and at least two other options.
   */
  options: Record<string, string>;
  /** One line on what the check is for (reports only). */
  description?: string | undefined;
}

/** The embedded reference server as the judge (started in-process). */
export const JudgeReferenceSchema = z.object({
  /** Predictor the reference server answers with. */
  predictor: z.string().min(1).default("judge"),
  /** Fault spec, e.g. `timeout=1`. */
  faults: z.string().optional(),
  /** Seed of the fault draws. */
  seed: z.number().int().min(0).optional(),
  /** Delay before each answer, ms. */
  latencyMs: z.number().min(0).optional(),
}).strict();

/** The embedded reference server as the judge, as written. */
export interface JudgeReferenceInput {
  /**
   * Predictor the reference server answers with.
   * @default "judge"
   */
  predictor?: string | undefined;
  /**
   * Fault spec, e.g. `timeout=1`.
   * @default undefined (no faults)
   */
  faults?: string | undefined;
  /**
   * Seed of the fault draws (an integer ≥ 0).
   * @default undefined (0)
   */
  seed?: number | undefined;
  /**
   * Delay before each answer, ms (≥ 0).
   * @default undefined (no delay)
   */
  latencyMs?: number | undefined;
}

/** The embedded reference server as the judge, with defaults applied. */
export interface JudgeReference {
  /** Predictor the reference server answers with. */
  predictor: string;
  /** Fault spec, e.g. `timeout=1`, when faults are injected. */
  faults?: string | undefined;
  /** Seed of the fault draws. */
  seed?: number | undefined;
  /** Delay before each answer, ms. */
  latencyMs?: number | undefined;
}

/** The judge endpoint. It has no `headers` field: nothing of the benchmark's reaches it. */
export const JudgeSpecSchema = z.object({
  /** Base URL of a System One server (http or https, no credentials, query or fragment). */
  baseUrl: z.string().min(1).optional(),
  /** Start the built-in reference server instead (ignored when `--base-url` is given). */
  reference: JudgeReferenceSchema.optional(),
  /** Model name sent with each request. */
  model: z.string().min(1).default("default"),
  /** The judge-only environment variable holding its bearer key. */
  apiKeyEnv: z.string().regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be an environment variable name",
  ).default("DECIBENCH_JUDGE_API_KEY"),
  /** Extra attempts for transient errors, all inside the deadline. */
  retries: z.number().int().min(0).max(5).default(2),
}).strict().refine((j) => j.baseUrl !== undefined || j.reference !== undefined, {
  message: "give baseUrl or reference",
});
/** The judge endpoint as written: give `baseUrl` or `reference`. */
export interface JudgeSpecInput {
  /**
   * Base URL of a System One server (http or https, no credentials, query or fragment).
   * @default undefined
   */
  baseUrl?: string | undefined;
  /**
   * Start the built-in reference server instead (ignored when `--base-url` is given).
   * @default undefined
   */
  reference?: JudgeReferenceInput | undefined;
  /**
   * Model name sent with each request.
   * @default "default"
   */
  model?: string | undefined;
  /**
   * The judge-only environment variable holding its bearer key.
   * @default "DECIBENCH_JUDGE_API_KEY"
   */
  apiKeyEnv?: string | undefined;
  /**
   * Extra attempts for transient errors, all inside the deadline (an integer, 0 to 5).
   * @default 2
   */
  retries?: number | undefined;
}

/** A judge endpoint with defaults applied. */
export interface JudgeSpec {
  /** Base URL of a System One server, when given. */
  baseUrl?: string | undefined;
  /** The built-in reference server's settings, when it is used. */
  reference?: JudgeReference | undefined;
  /** Model name sent with each request. */
  model: string;
  /** The judge-only environment variable holding its bearer key. */
  apiKeyEnv: string;
  /** Extra attempts for transient errors, all inside the deadline. */
  retries: number;
}

/**
 * The name of a check: its id without the version suffix (what transcript verdicts are keyed by,
 * so a reworded question does not need new verdicts).
 *
 * @param id A check id such as `refund-claim-v2`.
 * @returns The name, e.g. `refund-claim`.
 */
export function checkName(id: string): string {
  return id.replace(/-v[1-9][0-9]*$/, "");
}

/** The `audits` field of a workflow file. */
export const AuditsSpecSchema = z.object({
  /** Transcript file (JSONL), relative to the workflow file. */
  transcripts: z.string().min(1),
  /** Default set (`--set` overrides). */
  set: AuditSetSchema.default("recommended"),
  /** The judge. */
  judge: JudgeSpecSchema,
  /** The checks, in the order they are asked. */
  checks: z.array(AuditCheckSchema).min(1),
}).strict().superRefine((audits, ctx) => {
  const seen = new Set<string>();
  audits.checks.forEach((check, i) => {
    const name = checkName(check.id);
    if (seen.has(name)) {
      ctx.addIssue({
        code: "custom",
        path: ["checks", i, "id"],
        message: `repeats check "${name}"; keep one version of a check per workflow`,
      });
    }
    seen.add(name);
  });
});
/** The `audits` field of a workflow file as written. */
export interface AuditsSpecInput {
  /** Transcript file (JSONL), relative to the workflow file. */
  transcripts: string;
  /**
   * Default set (`--set` overrides).
   * @default "recommended"
   */
  set?: AuditSet | undefined;
  /** The judge. */
  judge: JudgeSpecInput;
  /** The checks, in the order they are asked (at least one; one version per check name). */
  checks: AuditCheck[];
}

/** The `audits` field with defaults applied. */
export interface AuditsSpec {
  /** Transcript file (JSONL), relative to the workflow file. */
  transcripts: string;
  /** Default set (`--set` overrides). */
  set: AuditSet;
  /** The judge. */
  judge: JudgeSpec;
  /** The checks, in the order they are asked. */
  checks: AuditCheck[];
}

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
  Assert<Equals<z.infer<typeof AuditSetSchema>, AuditSet>>,
  Assert<Equals<z.infer<typeof EvidenceScopeSchema>, EvidenceScope>>,
  Assert<Equals<z.input<typeof AuditCheckSchema>, AuditCheck>>,
  Assert<Equals<z.output<typeof AuditCheckSchema>, AuditCheck>>,
  Assert<Equals<z.input<typeof JudgeReferenceSchema>, JudgeReferenceInput>>,
  Assert<Equals<z.output<typeof JudgeReferenceSchema>, JudgeReference>>,
  Assert<Equals<z.input<typeof JudgeSpecSchema>, JudgeSpecInput>>,
  Assert<Equals<z.output<typeof JudgeSpecSchema>, JudgeSpec>>,
  Assert<Equals<z.input<typeof AuditsSpecSchema>, AuditsSpecInput>>,
  Assert<Equals<z.output<typeof AuditsSpecSchema>, AuditsSpec>>,
  Assert<Equals<z.infer<typeof TranscriptMessageSchema>, TranscriptMessage>>,
  Assert<Equals<z.infer<typeof TranscriptSchema>, Transcript>>,
  Assert<Equals<z.infer<typeof UnavailableKindSchema>, UnavailableKind>>,
  Assert<Equals<z.infer<typeof AuditOutcomeSchema>, AuditOutcome>>,
  Assert<Equals<z.infer<typeof AuditRecordSchema>, AuditRecord>>,
  Assert<Equals<z.infer<typeof AuditMetaSchema>, AuditMeta>>,
  Assert<Equals<z.output<typeof LabelledItemSchema>, LabelledItem>>,
];
