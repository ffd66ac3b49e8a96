/**
 * Turns one case's outcome into scored decision records.
 *
 * @module
 */
import { type Case, optionsOf } from "../dataset/mod.ts";
import type { CaseOutcome } from "../client/mod.ts";
import { argmax, scoreDecision } from "../metrics/mod.ts";
import type { DecisionRecord } from "./schemas.ts";

/** Options for `decisionRecords`. */
export interface DecisionRecordsOptions {
  /** Endpoint name when a workflow lists several. @default undefined */
  endpoint?: string | undefined;
}

function unscored(
  options: readonly string[],
  predicted: Record<string, number> | null,
): { answer: string | null; confidence: number | null } {
  return predicted ? argmax(options, predicted) : { answer: null, confidence: null };
}

function inOrder(options: readonly string[], dist: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of options) out[k] = dist[k] ?? 0;
  return out;
}

/**
 * Scores every question of a case against gold. On error every decision is a miss carrying the
 * error kind. A question the case has no gold for (a user question set's unlabelled row) is
 * recorded with its answer and `gold: null`, unscored: no correctness, KL or Brier.
 *
 * @param item The case asked.
 * @param outcome What asking it produced.
 * @param options Endpoint name.
 * @returns One record per question, in the case's question order.
 */
export function decisionRecords(
  item: Case,
  outcome: Pick<CaseOutcome, "reply" | "error" | "attempts" | "latencyMs">,
  options: DecisionRecordsOptions = {},
): DecisionRecord[] {
  const out: DecisionRecord[] = [];
  for (const [name, question] of Object.entries(item.questions)) {
    const gold = item.gold[name];
    const options_ = optionsOf(question);
    const answer = outcome.reply?.answers[name] ?? null;
    const predicted = answer ? inOrder(options_, answer.probabilities) : null;
    const score = gold
      ? scoreDecision(options_, predicted, gold)
      : { ...unscored(options_, predicted), correct: false, kl: null, brier: null };
    const record: DecisionRecord = {
      case: item.id,
      workflow: item.workflow,
      question: name,
      type: question.type,
      predicted,
      answer: score.answer,
      confidence: score.confidence,
      gold: gold ? gold.label : null,
      gold_probabilities: gold ? inOrder(options_, gold.probabilities) : null,
      correct: score.correct,
      kl: score.kl,
      brier: score.brier,
      latency_ms: outcome.latencyMs === null ? null : Math.round(outcome.latencyMs * 1000) / 1000,
      attempts: outcome.attempts,
      input_tokens: outcome.reply?.inputTokens ?? null,
      calibrated: answer ? answer.calibrated : null,
      error: outcome.error ? { kind: outcome.error.kind, message: outcome.error.message } : null,
    };
    if (answer?.native) record.native = answer.native;
    if (answer?.warnings?.length) record.warnings = answer.warnings;
    if (options.endpoint !== undefined) record.endpoint = options.endpoint;
    const reply = outcome.reply;
    if (reply?.responseId !== undefined) record.response_id = reply.responseId;
    if (reply?.provider !== undefined) record.provider = reply.provider;
    if (reply?.cost !== undefined) record.cost = reply.cost;
    out.push(record);
  }
  return out;
}
