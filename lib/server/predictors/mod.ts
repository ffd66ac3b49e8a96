/**
 * The predictor registry: the reference server's built-in predictors, one definition each, and the
 * functions that list and build them. `uniform` (equal probability on every option), `oracle`
 * (the gold distributions of the verified vendored test split), `prior` (the train split's mean
 * gold distributions), `fitted` (the vendored model trained on the train split) and `judge`
 * (transparent lexical rules answering arbitrary questions, for audits).
 *
 * @module
 */
import type { Predictor, PredictorDefinition } from "../predictor.ts";
import { loadDataset } from "../../dataset/mod.ts";
import { judgePredictor } from "./judge.ts";
import { oraclePredictor } from "./oracle.ts";
import { uniformPredictor } from "./uniform.ts";
import { loadModel } from "../../model/mod.ts";
import { fittedPredictor } from "./fitted.ts";
import { priorPredictor } from "./prior.ts";

export { judgePredictor } from "./judge.ts";
export { oraclePredictor } from "./oracle.ts";
export { uniformPredictor } from "./uniform.ts";
export { fittedPredictor } from "./fitted.ts";
export { priorPredictor } from "./prior.ts";

/** Every built-in predictor, by name. */
export const PREDICTOR_REGISTRY: readonly PredictorDefinition[] = [
  {
    name: "fitted",
    description: "the vendored model trained on the train split, reading the state (lib/model)",
    create: async () => fittedPredictor(await loadModel()),
  },
  {
    name: "judge",
    description: "transparent lexical rules answering any question, a stand-in judge for audits",
    create: () => Promise.resolve(judgePredictor()),
  },
  {
    name: "oracle",
    description: "the gold distributions of the test split (for tests)",
    create: async () => oraclePredictor((await loadDataset({ split: "test" })).cases),
  },
  {
    name: "prior",
    description: "per question, the mean of the train split's gold distributions",
    create: async () => priorPredictor((await loadDataset({ split: "train" })).cases),
  },
  {
    name: "uniform",
    description: "equal probability on every option (the dataset card's Uniform row)",
    create: () => Promise.resolve(uniformPredictor()),
  },
];

/**
 * Names of the built-in predictors.
 *
 * @returns The names, sorted.
 */
export function predictorNames(): string[] {
  return PREDICTOR_REGISTRY.map((p) => p.name).sort();
}

/**
 * Builds a built-in predictor.
 *
 * @param name Predictor name.
 * @returns The predictor.
 * @throws {RangeError} When no predictor has that name.
 */
export async function createPredictor(name: string): Promise<Predictor> {
  const definition = PREDICTOR_REGISTRY.find((p) => p.name === name);
  if (!definition) {
    throw new RangeError(
      `Cannot create predictor "${name}": known predictors are ${predictorNames().join(", ")}`,
    );
  }
  return await definition.create();
}
