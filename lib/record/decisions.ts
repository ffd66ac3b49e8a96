/**
 * Turns one case's outcome into scored decision records.
 *
 * @module
 */
import { type Case, optionsOf } from "../dataset/mod.ts";
import type { CaseOutcome } from "../client/mod.ts";
import { argmax, type DecisionScore, scoreDecision } from "../metrics/mod.ts";
import type { DecisionRecord } from "./schemas.ts";

/** Options for `decisionRecords`. */
export interface DecisionRecordsOptions {
  /** Endpoint name when a workflow lists several. @default undefined */
  endpoint?: string | undefined;
}

/** Whether a distribution's keys are exactly `options`, in their order. */
function ordered(options: readonly string[], dist: Record<string, number>): boolean {
  let i = 0;
  for (const k in dist) if (options[i++] !== k) return false;
  return i === options.length;
}

/**
 * The distribution keyed by `options` in their order (0 for one missing): the object itself when
 * it is so already (no copy kept per decision), else a copy.
 */
function inOrder(options: readonly string[], dist: Record<string, number>): Record<string, number> {
  if (ordered(options, dist)) return dist;
  const out: Record<string, number> = {};
  for (const k of options) out[k] = dist[k] ?? 0;
  return out;
}

/**
 * Scores every question of a case against gold. On error every decision is a miss carrying the
 * error kind. A question the case has no gold for (a user question set's unlabelled row) is
 * recorded with its answer, `gold: null` and `correct: null`, unscored: no KL or Brier field.
 *
 * @param item The case asked.
 * @param outcome What asking it produced.
 * @param options Endpoint name.
 * @returns One record per question, in the case's question order.
 */
export function decisionRecords(
  item: Case,
  outcome: Pick<CaseOutcome, "reply" | "error" | "attempts" | "latencyMs" | "cached">,
  options: DecisionRecordsOptions = {},
): DecisionRecord[] {
  const out: DecisionRecord[] = [];
  const latency = outcome.latencyMs === null ? null : Math.round(outcome.latencyMs * 1000) / 1000;
  const reply = outcome.reply;
  for (const [name, question] of Object.entries(item.questions)) {
    const keys = optionsOf(question);
    const gold = item.gold[name];
    const answer = reply?.answers[name] ?? null;
    let predicted: Record<string, number> | null = null;
    let score: DecisionScore = {
      answer: null,
      confidence: null,
      correct: false,
      kl: null,
      brier: null,
    };
    if (answer) {
      predicted = inOrder(keys, answer.probabilities);
      score = gold
        ? scoreDecision(keys, predicted, gold)
        : { ...argmax(keys, predicted), correct: false, kl: null, brier: null };
    }
    const record: DecisionRecord = {
      case: item.id,
      workflow: item.workflow,
      question: name,
      type: question.type,
      predicted,
      answer: score.answer,
      confidence: score.confidence,
      gold: gold ? gold.label : null,
      gold_probabilities: gold ? inOrder(keys, gold.probabilities) : null,
      correct: gold ? score.correct : null,
      ...(gold ? { kl: score.kl, brier: score.brier } : {}),
      latency_ms: latency,
      attempts: outcome.attempts,
      input_tokens: reply?.inputTokens ?? null,
      calibrated: answer ? answer.calibrated : null,
      error: outcome.error ? { kind: outcome.error.kind, message: outcome.error.message } : null,
    };
    if (answer?.native) record.native = answer.native;
    if (answer?.warnings?.length) record.warnings = answer.warnings;
    if (options.endpoint !== undefined) record.endpoint = options.endpoint;
    if (outcome.cached === true) record.cached = true;
    if (reply?.responseId !== undefined) record.response_id = reply.responseId;
    if (reply?.provider !== undefined) record.provider = reply.provider;
    if (reply?.cost !== undefined) record.cost = reply.cost;
    out.push(record);
  }
  return out;
}
