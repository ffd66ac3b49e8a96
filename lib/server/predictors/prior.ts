/**
 * The `prior` predictor: per workflow question, the mean of the train split's gold distributions
 * (never anything from the test split). It ignores the state.
 *
 * @module
 */
import type { Case, Question } from "../../dataset/mod.ts";
import { fitPrior } from "../../model/mod.ts";
import { type Distributions, type Predictor, typedDecisionsOnly } from "../predictor.ts";

/**
 * Creates the `prior` predictor from training cases. The workflow is identified by the request's
 * question names and options (a request may ask a subset of one workflow's questions).
 *
 * @param trainCases The Typed Decisions train split.
 * @returns The predictor; its `predict` throws `RangeError` for questions that match no trained
 *   workflow, or several.
 * @throws {RangeError} When there are no cases or a workflow's cases ask different questions.
 * @example
 * ```ts
 * import { priorPredictor } from "./prior.ts";
 * const ok = { type: "noul", instructions: "Fine?" } as const;
 * const prior = priorPredictor([{
 *   id: "t1", workflow: "w", state: {}, questions: { ok },
 *   gold: { ok: { type: "noul", label: "true", probabilities: { true: 0.8, false: 0.2 }, confidence: 0.6 } },
 * }]);
 * prior.predict({ any: "state" }, { ok }).ok; // { true: 0.8, false: 0.2 }
 * ```
 */
export function priorPredictor(trainCases: readonly Case[]): Predictor {
  const prior = fitPrior(trainCases);
  return {
    name: "prior",
    predict(state: unknown, questions: Record<string, Question>): Distributions {
      return typedDecisionsOnly("prior", () => prior.predict(state, questions));
    },
  };
}
