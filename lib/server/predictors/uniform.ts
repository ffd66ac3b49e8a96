/**
 * The `uniform` predictor: equal probability on every option (the dataset card's Uniform row).
 *
 * @module
 */
import { optionsOf, type Question } from "../../dataset/mod.ts";
import type { Distributions, Predictor } from "../predictor.ts";

/**
 * Creates the `uniform` predictor: every option of every question gets 1/N (yes/no: 0.5).
 *
 * @returns The predictor.
 * @example
 * ```ts
 * import { uniformPredictor } from "./uniform.ts";
 * const p = uniformPredictor().predict({}, { ok: { type: "noul", instructions: "Fine?" } });
 * p.ok; // { true: 0.5, false: 0.5 }
 * ```
 */
export function uniformPredictor(): Predictor {
  return {
    name: "uniform",
    predict(_state: unknown, questions: Record<string, Question>): Distributions {
      const distributions: Distributions = {};
      for (const name in questions) {
        const options = optionsOf(questions[name]!);
        const p = 1 / options.length;
        const distribution: Record<string, number> = {};
        for (const option of options) distribution[option] = p;
        distributions[name] = distribution;
      }
      return distributions;
    },
  };
}
