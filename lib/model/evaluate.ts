/**
 * Scoring a model in process on Typed Decisions cases, with the benchmark's formulas (via
 * `scoreDecision`) plus the tie-aware accuracy some published rows use: for checking the fitted
 * model and the prior without a server.
 *
 * @module
 */
import { type Case, optionsOf, type Question } from "../dataset/mod.ts";
import { scoreDecision } from "../metrics/mod.ts";

/** Anything that answers a case's questions (a compiled model or a server predictor). */
export interface CasePredictor {
  /**
   * Distributions per question for a state.
   *
   * @param state The state.
   * @param questions The questions.
   * @returns Option → probability per question.
   */
  predict(
    state: unknown,
    questions: Record<string, Question>,
  ): Record<string, Record<string, number>>;
}

/** One scored decision. */
export interface ScoredDecision {
  /** Case id. */
  case: string;
  /** Workflow. */
  workflow: string;
  /** Question name. */
  question: string;
  /** Question type. */
  type: string;
  /** Predicted answer (argmax, first-listed option on a tie) equals the gold label. */
  correct: boolean;
  /** Predicted answer has the top gold probability (tied gold answers all count). */
  correctTieAware: boolean;
  /** KL(gold ‖ predicted) in nats. */
  kl: number;
  /** Brier score. */
  brier: number;
}

/** Mean figures of a group of decisions. */
export interface EvaluationFigures {
  /** Decisions. */
  n: number;
  /** Accuracy against the gold label. */
  accuracy: number;
  /** Accuracy counting any top gold answer as correct. */
  accuracyTieAware: number;
  /** Mean KL(gold ‖ predicted). */
  kl: number;
  /** Mean Brier score. */
  brier: number;
}

/**
 * Scores a predictor on every question of every case.
 *
 * @param predictor The model.
 * @param cases The cases (the test split, when measuring the benchmark).
 * @returns One scored decision per question, in case order.
 * @throws {RangeError} When the predictor cannot answer a case.
 */
export function scoreCases(predictor: CasePredictor, cases: readonly Case[]): ScoredDecision[] {
  const out: ScoredDecision[] = [];
  for (const caseItem of cases) {
    const answers = predictor.predict(caseItem.state, caseItem.questions);
    for (const [name, question] of Object.entries(caseItem.questions)) {
      const gold = caseItem.gold[name];
      const predicted = answers[name];
      if (!gold || !predicted) {
        throw new RangeError(
          `Cannot score case "${caseItem.id}": no ${
            gold ? "prediction" : "gold answer"
          } for "${name}"`,
        );
      }
      const score = scoreDecision(optionsOf(question), predicted, gold);
      const top = Math.max(...Object.values(gold.probabilities));
      out.push({
        case: caseItem.id,
        workflow: caseItem.workflow,
        question: name,
        type: question.type,
        correct: score.correct,
        correctTieAware: score.answer !== null && (gold.probabilities[score.answer] ?? 0) >= top,
        kl: score.kl as number,
        brier: score.brier as number,
      });
    }
  }
  return out;
}

/**
 * Mean figures of scored decisions (all zero for none).
 *
 * @param decisions Scored decisions.
 * @returns The figures.
 */
export function figuresOf(decisions: readonly ScoredDecision[]): EvaluationFigures {
  const n = decisions.length;
  const mean = (f: (d: ScoredDecision) => number): number =>
    n === 0 ? 0 : decisions.reduce((s, d) => s + f(d), 0) / n;
  return {
    n,
    accuracy: mean((d) => (d.correct ? 1 : 0)),
    accuracyTieAware: mean((d) => (d.correctTieAware ? 1 : 0)),
    kl: mean((d) => d.kl),
    brier: mean((d) => d.brier),
  };
}

/**
 * Figures per group, groups in first-seen order.
 *
 * @param decisions Scored decisions.
 * @param key `type`, `workflow` or `question` (as `workflow/question`).
 * @returns Group name → figures.
 */
export function figuresBy(
  decisions: readonly ScoredDecision[],
  key: "type" | "workflow" | "question",
): Map<string, EvaluationFigures> {
  const groups = new Map<string, ScoredDecision[]>();
  for (const d of decisions) {
    const name = key === "question" ? `${d.workflow}/${d.question}` : d[key];
    const group = groups.get(name);
    if (group) group.push(d);
    else groups.set(name, [d]);
  }
  return new Map([...groups].map(([name, group]) => [name, figuresOf(group)]));
}
