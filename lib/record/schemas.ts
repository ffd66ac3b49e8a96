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
});
/** One scored decision. */
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;
