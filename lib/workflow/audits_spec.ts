/**
 * The `audits` field of a workflow file: the judge, its versioned checks and the
 * transcript file. The interfaces are the public contract; each zod schema is checked against its
 * interfaces at compile time (`_SchemasMatch` at the end).
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";

/** The option every judge question must offer: the judge cannot tell. */
export const UNCLEAR = "unclear";

/** A check id: lowercase words joined by `-` or `_`, ending in a version suffix `-vN`. */
export const CHECK_ID_PATTERN: RegExp = /^[a-z0-9][a-z0-9_-]*-v[1-9][0-9]*$/;

/** Audit sets: `recommended` checks run in both; `all` adds the checks marked `all`. */
/** The audit sets a workflow may name. */
export const AUDIT_SETS = ["recommended", "all"] as const;
/** Validates an audit set. */
export const AuditSetSchema = z.enum(AUDIT_SETS);
/** An audit set: `recommended` checks run in both; `all` adds the checks marked `all`. */
export type AuditSet = "recommended" | "all";

/**
 * Evidence scopes: `messages` sends every public assistant message (so an earlier claim that a
 * later message contradicts still counts); `final_answer` sends only the last one.
 */
/** The evidence scopes a check may take. */
export const EVIDENCE_SCOPES = ["messages", "final_answer"] as const;
/** Validates an evidence scope. */
export const EvidenceScopeSchema = z.enum(EVIDENCE_SCOPES);
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

/** Each schema's input and output types equal their public interfaces. */
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
];
