/**
 * Private: small builders of decisions, probes and states for the live monitor's unit tests.
 *
 * @module
 */
import type { QuestionType } from "../dataset/mod.ts";
import type { ErrorKind } from "../client/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import type { LiveMeta, Probe } from "./state.ts";

/** Header facts for tests. */
export const META: LiveMeta = {
  workflow: "reference",
  endpoint: "http://127.0.0.1:8080/v1/systemone",
  model: "decibench-reference",
  intervalSeconds: 0.5,
  cases: 400,
  attribution: "Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)",
};

/** What a test decision needs. */
export interface DecisionSpec {
  /** Case id. @default "c1" */
  caseId?: string | undefined;
  /** Question name. @default "q" */
  question?: string | undefined;
  /** Question type. @default "noul" */
  type?: QuestionType | undefined;
  /** Matches gold. @default true */
  correct?: boolean | undefined;
  /** Top probability. @default 0.8 */
  confidence?: number | undefined;
  /** Brier. @default 0.1 */
  brier?: number | undefined;
  /** Error kind (then unanswered). @default null */
  error?: ErrorKind | null | undefined;
}

/** A scored decision as `decisionRecords` would produce it. */
export function decision(spec: DecisionSpec = {}): DecisionRecord {
  const error = spec.error ?? null;
  const correct = error ? false : spec.correct ?? true;
  const confidence = spec.confidence ?? 0.8;
  return {
    case: spec.caseId ?? "c1",
    workflow: "customer_service",
    question: spec.question ?? "q",
    type: spec.type ?? "noul",
    predicted: error ? null : { true: confidence, false: 1 - confidence },
    answer: error ? null : correct ? "true" : "false",
    confidence: error ? null : confidence,
    gold: "true",
    gold_probabilities: { true: 1, false: 0 },
    correct,
    kl: error ? null : 0.1,
    brier: error ? null : spec.brier ?? 0.1,
    latency_ms: error ? null : 10,
    attempts: 1,
    input_tokens: error ? null : 500,
    calibrated: error ? null : true,
    error: error ? { kind: error, message: `failed: ${error}` } : null,
  };
}

/** A probe of five decisions built from one spec (question names q1…q5). */
export function probe(
  caseId: string,
  spec: Omit<DecisionSpec, "caseId" | "question"> = {},
  overrides: Partial<Probe> = {},
): Probe {
  const records = [1, 2, 3, 4, 5].map((i) => decision({ ...spec, caseId, question: `q${i}` }));
  const error = spec.error
    ? { kind: spec.error, message: `failed: ${spec.error}`, status: null }
    : null;
  return {
    caseId,
    workflow: "customer_service",
    statePreview: '{"ticket":"refund please"}',
    records,
    latencyMs: error ? null : 10,
    inputTokens: error ? null : 500,
    error,
    attempts: 1,
    ...overrides,
  };
}
