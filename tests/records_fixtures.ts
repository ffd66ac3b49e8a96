// Small hand-made run records for the record and report unit tests.
import type { LoadedRun } from "../lib/record/load.ts";
import type { DecisionRecord, RunJson, RunSpec } from "../lib/record/schemas.ts";
import { summarize } from "../lib/metrics/mod.ts";

/**
 * A scored noul decision.
 *
 * @param overrides Fields to change.
 * @returns The record.
 */
export function record(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  return {
    case: "c1",
    workflow: "customer_service",
    question: "q1",
    type: "noul",
    predicted: { true: 0.8, false: 0.2 },
    answer: "true",
    confidence: 0.8,
    gold: "true",
    gold_probabilities: { true: 1, false: 0 },
    correct: true,
    kl: 0.2231435513142097,
    brier: 0.08,
    latency_ms: 12.5,
    attempts: 1,
    input_tokens: 300,
    calibrated: true,
    error: null,
    ...overrides,
  };
}

/**
 * An errored decision (a network failure).
 *
 * @param overrides Fields to change.
 * @returns The record.
 */
export function errored(overrides: Partial<DecisionRecord> = {}): DecisionRecord {
  return record({
    predicted: null,
    answer: null,
    confidence: null,
    correct: false,
    kl: null,
    brier: null,
    latency_ms: null,
    attempts: 3,
    input_tokens: null,
    calibrated: null,
    error: { kind: "network", message: "Cannot reach the server" },
    ...overrides,
  });
}

/**
 * A run spec.
 *
 * @param overrides Fields to change.
 * @returns The spec.
 */
export function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  return {
    workflow: "w",
    workflow_file: "workflows/w.ts",
    endpoint: "http://127.0.0.1:8080/v1/systemone",
    endpoint_name: null,
    engine: "systemone",
    model: "m",
    state_encoding: "json",
    reference: null,
    dataset: "LocalLLaMA/typed-decisions",
    revision: "e039ebffcc280174dd354227424fb2b249f191de",
    split: "test",
    license: "Apache-2.0",
    cases: 2,
    case_ids_sha256: "a".repeat(64),
    questions_sha256: "b".repeat(64),
    parallel: 4,
    timeout_ms: 1000,
    retries: 2,
    calibrated: true,
    fingerprint: "0123456789abcdef",
    seed: 0,
    ...overrides,
  };
}

/**
 * A finished run record with the summary of `records`.
 *
 * @param records The run's decisions.
 * @param overrides Fields to change.
 * @returns The run record.
 */
export function runJson(
  records: readonly DecisionRecord[],
  overrides: Partial<RunJson> = {},
): RunJson {
  return {
    version: 2,
    tool: "decibench",
    tool_version: "0.0.0",
    id: "20260101-000000-w-abcd",
    status: "completed",
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:00:01.000Z",
    spec: spec(),
    summary: summarize(records, { resamples: 50 }),
    thresholds: [],
    model_reported: null,
    fatal: null,
    ...overrides,
  };
}

/**
 * A loaded run made of hand-written decisions.
 *
 * @param id Run id (also its directory).
 * @param records Decisions.
 * @param over Spec fields to change.
 * @returns The run.
 */
export function loadedRun(
  id: string,
  records: DecisionRecord[],
  over: Partial<RunSpec> = {},
): LoadedRun {
  return {
    dir: id,
    run: runJson(records, { id, spec: spec(over) }),
    records,
    decisions: async function* () {
      yield* records;
    },
  };
}
