/**
 * Zod schemas for run records: one line of `decisions.jsonl` per decision.
 *
 * @module
 */
import { z } from "zod";
import { QuestionTypeSchema } from "../dataset/schemas.ts";

/** Error kinds a decision can carry. */
export const ErrorKindSchema = z.enum([
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
]);
/** An error kind. */
export type ErrorKind = z.infer<typeof ErrorKindSchema>;

/** One scored decision as written to `decisions.jsonl`. */
export const DecisionRecordSchema = z.object({
  /** Case id. */
  case: z.string(),
  /** Workflow of the case. */
  workflow: z.string(),
  /** Question name. */
  question: z.string(),
  /** Question type. */
  type: QuestionTypeSchema,
  /** The distribution scored, keyed in option order, or null on error. */
  predicted: z.record(z.string(), z.number()).nullable(),
  /** The predicted answer (argmax, first listed wins a tie), or null. */
  answer: z.string().nullable(),
  /** The predicted answer's probability, or null. */
  confidence: z.number().nullable(),
  /** The gold label. */
  gold: z.string(),
  /** The gold distribution, keyed in option order. */
  gold_probabilities: z.record(z.string(), z.number()),
  /** Predicted answer equals the gold label (false on error). */
  correct: z.boolean(),
  /** KL(gold ‖ predicted) in nats, null on error. */
  kl: z.number().nullable(),
  /** Brier score, null on error. */
  brier: z.number().nullable(),
  /** Latency of the request that answered (ms), null when nothing answered. */
  latency_ms: z.number().nullable(),
  /** Attempts made for the case (1 = no retry). */
  attempts: z.number().int().min(0),
  /** Input tokens the server reported for the case's request, or null. */
  input_tokens: z.number().nullable(),
  /** Whether the engine's probabilities are calibrated, null on error. */
  calibrated: z.boolean().nullable(),
  /** Error kind and message, or null. */
  error: z.object({ kind: ErrorKindSchema, message: z.string() }).nullable(),
  /** Engine extras (dohnuts' `native`), when present. */
  native: z.record(z.string(), z.unknown()).optional(),
  /** Warnings about this answer, when any. */
  warnings: z.array(z.string()).optional(),
  /** Endpoint name when a workflow lists several. */
  endpoint: z.string().optional(),
  /** The provider's response id for the case's request (OpenRouter's `id`), when reported. */
  response_id: z.string().optional(),
  /** The relay's upstream provider for the case's request (OpenRouter's `provider`). */
  provider: z.string().optional(),
  /** Cost the provider reported for the case's request (repeated on each of its decisions). */
  cost: z.number().optional(),
});
/** One scored decision. */
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;

/** A threshold result: thresholds are results, and the exit status follows them. */
export const ThresholdResultSchema = z.object({
  metric: z.string(),
  op: z.string(),
  limit: z.number(),
  value: z.number().nullable(),
  pass: z.boolean(),
});
/** A threshold result. */
export type ThresholdResult = z.infer<typeof ThresholdResultSchema>;

/** What ran: everything that identifies a run's configuration. */
export const RunSpecSchema = z.object({
  workflow: z.string(),
  workflow_file: z.string().nullable(),
  endpoint: z.string(),
  endpoint_name: z.string().nullable(),
  engine: z.string(),
  model: z.string(),
  state_encoding: z.enum(["json", "text"]),
  reference: z.record(z.string(), z.unknown()).nullable(),
  dataset: z.string(),
  revision: z.string(),
  split: z.string(),
  license: z.string(),
  cases: z.number().int(),
  case_ids_sha256: z.string(),
  questions_sha256: z.string(),
  parallel: z.number().int(),
  timeout_ms: z.number(),
  retries: z.number().int(),
  calibrated: z.boolean(),
  fingerprint: z.string(),
  seed: z.number().int(),
});
/** What ran. */
export type RunSpec = z.infer<typeof RunSpecSchema>;

/** One session of a run: the first start, then each `--resume`. */
export const RunSessionSchema = z.object({
  /** When the session started (ISO 8601). */
  started_at: z.string(),
  /** When it ended (ISO 8601). */
  finished_at: z.string(),
  /** Status the session ended with. */
  status: z.enum(["completed", "incomplete", "interrupted"]),
  /** Cases already answered when the session started (kept, not asked again). */
  kept: z.number().int().min(0),
  /** Cases this session recorded an outcome for. */
  asked: z.number().int().min(0),
  /** HTTP requests this session sent (attempts, retries included). */
  requests: z.number().int().min(0),
  /** Wall-clock duration of the session in ms. */
  duration_ms: z.number().min(0),
});
/** One session of a run. */
export type RunSession = z.infer<typeof RunSessionSchema>;

/** `run.json`. */
export const RunJsonSchema = z.object({
  version: z.literal(1),
  tool: z.string(),
  tool_version: z.string(),
  id: z.string(),
  status: z.enum(["running", "completed", "incomplete", "interrupted"]),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  spec: RunSpecSchema,
  summary: z.record(z.string(), z.unknown()).nullable(),
  thresholds: z.array(ThresholdResultSchema),
  model_reported: z.string().nullable(),
  fatal: z.string().nullable(),
  /** Sessions in order (absent in records written before sessions were kept). */
  sessions: z.array(RunSessionSchema).optional(),
});
/** `run.json`. */
export type RunJson = z.infer<typeof RunJsonSchema>;
