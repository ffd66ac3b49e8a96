/**
 * The decision gate (ADR-033's DecisionEval): one yes/no question per item, the returned P(yes)
 * as the score, a pass bar, and "undecided" — never a 0, never a pass — when the question could
 * not be asked.
 *
 * @module
 */
import {
  askCase,
  endpointIdentity,
  type ErrorKind,
  pool,
  systemOneEngine,
  systemOneUrl,
} from "../client/mod.ts";
import type { Question } from "../dataset/mod.ts";

/** The default pass bar. It is uncalibrated: no labelled data chose it. */
export const DEFAULT_GATE_THRESHOLD = 0.7;

/** One item to gate. */
export interface GateItem {
  /** Item id. */
  id: string;
  /** The state the question is about (sent as JSON). */
  state: unknown;
  /** The yes/no question. */
  instructions: string;
  /** Optional descriptions of yes (`true`) and no (`false`). */
  criteria?: { true: string; false: string };
}

/** The decision model the gate asks. */
export interface GateEndpoint {
  /** Base URL of a System One server. */
  baseUrl: string;
  /** Model sent. @default "default" */
  model?: string | undefined;
  /** Bearer key, given explicitly (the gate reads no environment). @default undefined */
  apiKey?: string | undefined;
}

/** Options of {@linkcode decisionGate}. */
export interface DecisionGateOptions {
  /** Pass when P(yes) ≥ this. @default 0.7 */
  threshold?: number | undefined;
  /** Set true only for a bar chosen on held-out labels (e.g. by `thresholdSweep`). @default false */
  thresholdCalibrated?: boolean | undefined;
  /** Per-request timeout, ms. @default 120000 */
  timeoutMs?: number | undefined;
  /** Extra attempts for transient errors. @default 2 */
  retries?: number | undefined;
  /** First retry backoff, ms. @default 250 */
  backoffMs?: number | undefined;
  /** Requests in flight. @default 1 */
  parallel?: number | undefined;
  /** Stops handing out items when aborted; items not asked are left out of the result. @default undefined */
  signal?: AbortSignal | undefined;
}

/** What graded, as the ADR's provenance names it. */
export interface GateProvenance {
  /** Always `atomic-decision`: a decision model graded, not an LLM judge or code. */
  kind: "atomic-decision";
  /** The model id the provider echoed (null when it did not answer or named none). */
  model: string | null;
  /** The provider's response id, when reported. */
  responseId: string | null;
  /** The cost the provider reported, else null (never estimated). */
  cost: number | null;
  /** Endpoint identity (never credentials). */
  endpoint: string;
}

/** The gate's result for one item. */
export interface GateResult {
  /** Item id. */
  id: string;
  /** `pass`, `fail`, or `undecided` when the question could not be asked. */
  status: "pass" | "fail" | "undecided";
  /** P(yes) exactly as returned, or null when undecided (never 0 in its place). */
  score: number | null;
  /** `score ≥ threshold`, or null when undecided. */
  passed: boolean | null;
  /** Always null: a yes/no answer carries no confidence, and none is manufactured. */
  confidence: null;
  /** The bar applied. */
  threshold: number;
  /** Whether the bar was chosen on held-out labels. */
  thresholdCalibrated: boolean;
  /** What graded. */
  provenance: GateProvenance;
  /** The error that left the item undecided, or null. */
  error: { kind: ErrorKind; message: string } | null;
  /** Latency of the request that answered, ms. */
  latencyMs: number | null;
  /** Requests made. */
  attempts: number;
}

/**
 * Gates items with a decision model: one `noul` question per item and request.
 *
 * @param endpoint Base URL, model and key of the decision model.
 * @param items The items, each with its own question.
 * @param options Threshold, timeouts, retries, parallelism, signal.
 * @returns One result per item asked, in item order.
 * @throws {RangeError} When the threshold is not in [0, 1].
 * @throws {TypeError} When the base URL is invalid.
 * @throws {DOMException} When `signal` aborts while a request is in flight.
 * @example
 * ```ts
 * import { decisionGate } from "./gate.ts";
 * import { startReferenceServer } from "../server/mod.ts";
 * await using server = await startReferenceServer({ predictor: "uniform" });
 * const [result] = await decisionGate({ baseUrl: server.url }, [
 *   { id: "t1", state: { ticket: "Refund my order" }, instructions: "Is this a refund request?" },
 * ]);
 * result?.status; // "fail": 0.5 is below the uncalibrated default bar of 0.70
 * ```
 */
export async function decisionGate(
  endpoint: GateEndpoint,
  items: readonly GateItem[],
  options: DecisionGateOptions = {},
): Promise<GateResult[]> {
  const threshold = options.threshold ?? DEFAULT_GATE_THRESHOLD;
  if (!(threshold >= 0 && threshold <= 1)) {
    throw new RangeError(`Cannot gate: threshold "${threshold}" is not in [0, 1]`);
  }
  const calibrated = options.thresholdCalibrated ?? false;
  const engine = systemOneEngine(endpoint.baseUrl);
  const identity = endpointIdentity(systemOneUrl(endpoint.baseUrl));
  const model = endpoint.model ?? "default";
  const results: (GateResult | undefined)[] = new Array(items.length);
  await pool(items, options.parallel ?? 1, async (item, index) => {
    const question: Question = {
      type: "noul",
      instructions: item.instructions,
      ...(item.criteria ? { criteria: item.criteria } : {}),
    };
    const questions = { decision: question };
    const request = engine.build({ state: item.state, questions, model, stateEncoding: "json" });
    const outcome = await askCase(engine, request, questions, {
      apiKey: endpoint.apiKey,
      timeoutMs: options.timeoutMs,
      retries: options.retries,
      backoffMs: options.backoffMs,
      signal: options.signal,
    });
    const reply = outcome.reply;
    const score = reply?.answers.decision?.probabilities.true ?? null;
    const decided = score !== null;
    results[index] = {
      id: item.id,
      status: !decided ? "undecided" : score >= threshold ? "pass" : "fail",
      score,
      passed: decided ? score >= threshold : null,
      confidence: null,
      threshold,
      thresholdCalibrated: calibrated,
      provenance: {
        kind: "atomic-decision",
        model: reply?.model ?? null,
        responseId: reply?.responseId ?? null,
        cost: reply?.cost ?? null,
        endpoint: identity,
      },
      error: decided ? null : outcome.error ?? { kind: "malformed", message: "No answer" },
      latencyMs: outcome.latencyMs,
      attempts: outcome.attempts,
    };
  }, options.signal);
  return results.filter((r): r is GateResult => r !== undefined);
}
