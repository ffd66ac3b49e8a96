/**
 * Turns one case's outcome into scored decision records.
 *
 * @module
 */
import { optionsOf } from "../dataset/questions.ts";
import type { Case } from "../dataset/schemas.ts";
import type { CaseOutcome } from "../client/ask.ts";
import type { DecisionScore } from "../metrics/score.ts";
import { type CompiledScorer, compileScorer } from "../metrics/scorer.ts";
import { type LineParts, rememberLineParts } from "./_line.ts";
import type { DecisionRecord } from "./schemas.ts";

/** Options for `decisionRecords`. */
export interface DecisionRecordsOptions {
  /** Endpoint name when a workflow lists several. @default undefined */
  endpoint?: string;
}

function inOrder(options: readonly string[], dist: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of options) out[k] = dist[k] ?? 0;
  return out;
}

/** What scoring and serialising one question of one case needs, worked out once. */
interface QuestionPlan {
  name: string;
  type: Case["questions"][string]["type"];
  options: readonly string[];
  label: string;
  /** The gold distribution in option order, shared (frozen) by every record of the question. */
  goldInOrder: Readonly<Record<string, number>>;
  score: CompiledScorer;
  line: LineParts;
}

// A run asks the same cases again and again (repeats, resumes, comparisons): their plans are
// kept with the case objects.
const plans = new WeakMap<Case, QuestionPlan[]>();

function planOf(item: Case): QuestionPlan[] {
  let plan = plans.get(item);
  if (plan !== undefined) return plan;
  plan = Object.entries(item.questions).map(([name, question]) => {
    const gold = item.gold[name];
    if (!gold) throw new RangeError(`Cannot score case "${item.id}": no gold for "${name}"`);
    const options = optionsOf(question);
    const goldInOrder = Object.freeze(inOrder(options, gold.probabilities));
    const keys = Object.keys(inOrder(options, {}));
    return {
      name,
      type: question.type,
      options,
      label: gold.label,
      goldInOrder,
      score: compileScorer(options, gold),
      line: {
        head: `{"case":${JSON.stringify(item.id)},"workflow":${JSON.stringify(item.workflow)},` +
          `"question":${JSON.stringify(name)},"type":${JSON.stringify(question.type)},"predicted":`,
        middle: `,"gold":${JSON.stringify(gold.label)},"gold_probabilities":${
          JSON.stringify(goldInOrder)
        },"correct":`,
        keys,
        quoted: keys.map((k) => `${JSON.stringify(k)}:`),
      },
    };
  });
  plans.set(item, plan);
  return plan;
}

/**
 * Scores every question of a case against gold. On error every decision is a miss carrying the
 * error kind. What depends only on the case (options, gold in option order, the compiled scorer,
 * the fixed parts of each JSON line) is worked out on the first call for a case object and
 * reused, so a case object must not be changed once scored.
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
  for (const q of planOf(item)) {
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
      predicted = {};
      for (let i = 0; i < values.length; i++) predicted[q.options[i]!] = values[i]!;
      score = q.score(values);
    }
    const record: DecisionRecord = {
      case: item.id,
      workflow: item.workflow,
      question: q.name,
      type: q.type,
      predicted,
      answer: score.answer,
      confidence: score.confidence,
      gold: q.label,
      gold_probabilities: q.goldInOrder as Record<string, number>,
      correct: score.correct,
      kl: score.kl,
      brier: score.brier,
      latency_ms: latency,
      attempts: outcome.attempts,
      input_tokens: reply?.inputTokens ?? null,
      calibrated: answer ? answer.calibrated : null,
      error: outcome.error,
    };
    if (answer?.native) record.native = answer.native;
    if (answer?.warnings?.length) record.warnings = answer.warnings;
    if (options.endpoint !== undefined) record.endpoint = options.endpoint;
    if (reply?.responseId !== undefined) record.response_id = reply.responseId;
    if (reply?.provider !== undefined) record.provider = reply.provider;
    if (reply?.cost !== undefined) record.cost = reply.cost;
    rememberLineParts(record, q.line);
    out.push(record);
  }
  return out;
}
