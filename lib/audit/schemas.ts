/**
 * Zod schemas of the audit module's boundaries: the `audits` field of a workflow file, the
 * transcript file (JSONL of conversations), the labelled-items file of threshold sweeps, and the
 * lines of `audit.jsonl`.
 *
 * @module
 */
import { z } from "zod";

/** The option every judge question must offer: the judge cannot tell. */
export const UNCLEAR = "unclear";

/** A check id: lowercase words joined by `-` or `_`, ending in a version suffix `-vN`. */
export const CHECK_ID_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]*-v[1-9][0-9]*$/;

/** Audit sets: `recommended` checks run in both; `all` adds the checks marked `all`. */
export const AuditSetSchema = z.enum(["recommended", "all"]);
/** An audit set. */
export type AuditSet = z.infer<typeof AuditSetSchema>;

/**
 * Evidence scopes: `messages` sends every public assistant message (so an earlier claim that a
 * later message contradicts still counts); `final_answer` sends only the last one.
 */
export const EvidenceScopeSchema = z.enum(["messages", "final_answer"]);
/** An evidence scope. */
export type EvidenceScope = z.infer<typeof EvidenceScopeSchema>;

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
/** A check as written in a workflow file. */
export type AuditCheck = z.infer<typeof AuditCheckSchema>;

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
/** A judge endpoint with defaults applied. */
export type JudgeSpec = z.output<typeof JudgeSpecSchema>;

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
/** The `audits` field as written. */
export type AuditsSpecInput = z.input<typeof AuditsSpecSchema>;
/** The `audits` field with defaults applied. */
export type AuditsSpec = z.output<typeof AuditsSpecSchema>;

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
/** A transcript message. */
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;

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
/** A transcript item. */
export type Transcript = z.infer<typeof TranscriptSchema>;

/** Why an audit is unavailable: an endpoint error kind or one of the audit's own reasons. */
export const UnavailableKindSchema = z.enum([
  "authentication",
  "invalid_request",
  "unsupported_endpoint",
  "rate_limited",
  "overloaded",
  "unavailable",
  "timeout",
  "network",
  "malformed",
  "limit",
  "empty_evidence",
  "too_large",
  "deadline",
]);
/** Why an audit is unavailable. */
export type UnavailableKind = z.infer<typeof UnavailableKindSchema>;

/** Audit outcomes. */
export const AuditOutcomeSchema = z.enum(["agree", "disagree", "abstained", "unavailable"]);
/** An audit outcome. */
export type AuditOutcome = z.infer<typeof AuditOutcomeSchema>;

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
/** One line of `audit.jsonl`. */
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

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
  status: z.enum(["running", "completed", "interrupted"]),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  counts: z.record(AuditOutcomeSchema, z.number().int()),
}).strict();
/** `audit.json`. */
export type AuditMeta = z.infer<typeof AuditMetaSchema>;

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
/** A labelled yes/no item. */
export type LabelledItem = z.output<typeof LabelledItemSchema>;
