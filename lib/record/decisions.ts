/**
 * Turns one case's outcome into scored decision records.
 *
 * @module
 */
import { type Case, optionsOf } from "../dataset/mod.ts";
import type { CaseOutcome } from "../client/mod.ts";
import { argmax, type DecisionScore, type QuestionScorer, questionScorer } from "../metrics/mod.ts";
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

/** What scoring one question needs from its options, worked out once per question set. */
interface QuestionPlan {
  name: string;
  type: Case["questions"][string]["type"];
  options: readonly string[];
  score: QuestionScorer;
}

// A workflow asks the same (shared, frozen) questions object of every case.
const plans = new WeakMap<Case["questions"], QuestionPlan[]>();

function planOf(questions: Case["questions"]): QuestionPlan[] {
  let plan = plans.get(questions);
  if (plan === undefined) {
    plan = Object.entries(questions).map(([name, question]) => {
      const options = optionsOf(question);
      return { name, type: question.type, options, score: questionScorer(options) };
    });
    plans.set(questions, plan);
  }
  return plan;
}

/**
 * Scores every question of a case against gold. On error every decision is a miss carrying the
 * error kind. A question the case has no gold for (a user question set's unlabelled row) is
 * recorded with its answer and `gold: null`, unscored: no correctness, KL or Brier. What depends
 * only on the questions (their options and scorers) is worked out once per questions object, so a
 * questions object must not be changed once scored (the dataset's are frozen).
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
  const latency = outcome.latencyMs === null ? null : Math.round(outcome.latencyMs * 1000) / 1000;
  const reply = outcome.reply;
  for (const q of planOf(item.questions)) {
    const gold = item.gold[q.name];
    const answer = reply?.answers[q.name] ?? null;
    let predicted: Record<string, number> | null = null;
    let score: DecisionScore = {
      answer: null,
      confidence: null,
      correct: false,
      kl: null,
      brier: null,
    };
    if (answer) {
      const values = q.options.map((k) => answer.probabilities[k] ?? 0);
      predicted = inOrder(q.options, answer.probabilities);
      score = gold
        ? q.score(values, gold)
        : { ...argmax(q.options, predicted), correct: false, kl: null, brier: null };
    }
    const record: DecisionRecord = {
      case: item.id,
      workflow: item.workflow,
      question: q.name,
      type: q.type,
      predicted,
      answer: score.answer,
      confidence: score.confidence,
      gold: gold ? gold.label : null,
      gold_probabilities: gold ? inOrder(q.options, gold.probabilities) : null,
      correct: score.correct,
      kl: score.kl,
      brier: score.brier,
      latency_ms: latency,
      attempts: outcome.attempts,
      input_tokens: reply?.inputTokens ?? null,
      calibrated: answer ? answer.calibrated : null,
      error: outcome.error ? { kind: outcome.error.kind, message: outcome.error.message } : null,
    };
    if (answer?.native) record.native = answer.native;
    if (answer?.warnings?.length) record.warnings = answer.warnings;
    if (options.endpoint !== undefined) record.endpoint = options.endpoint;
    if (reply?.responseId !== undefined) record.response_id = reply.responseId;
    if (reply?.provider !== undefined) record.provider = reply.provider;
    if (reply?.cost !== undefined) record.cost = reply.cost;
    out.push(record);
  }
  return out;
}
