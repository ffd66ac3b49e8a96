/**
 * The predictor registry: the reference server's built-in predictors, one definition each, and the
 * functions that list and build them. `uniform` (equal probability on every option), `oracle`
 * (the gold distributions of the verified vendored test split), `prior` (the train split's mean
 * gold distributions), `fitted` (the vendored model trained on the train split), `judge`
 * (transparent lexical rules answering arbitrary questions, for audits) and `synthetic` (a model of
 * known skill and temperature over a labelled question set, built over its cases).
 *
 * @module
 */
import type { Case } from "../../dataset/mod.ts";
import type { Predictor, PredictorDefinition, PredictorSettings } from "../predictor.ts";
import { loadDataset } from "../../dataset/mod.ts";
import { judgePredictor } from "./judge.ts";
import { oraclePredictor } from "./oracle.ts";
import { uniformPredictor } from "./uniform.ts";
import { loadModel } from "../../model/mod.ts";
import { fittedPredictor } from "./fitted.ts";
import { priorPredictor } from "./prior.ts";
import { syntheticPredictor } from "./synthetic.ts";

export { judgePredictor } from "./judge.ts";
export { oraclePredictor } from "./oracle.ts";
export { uniformPredictor } from "./uniform.ts";
export { fittedPredictor } from "./fitted.ts";
export { priorPredictor } from "./prior.ts";
export { syntheticDistribution, type SyntheticOptions, syntheticPredictor } from "./synthetic.ts";

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
    name: "synthetic",
    description:
      "noise logits plus skill on the gold option, divided by a temperature (over a labelled question set)",
    create: () =>
      Promise.reject(
        new RangeError(
          'Cannot create the synthetic predictor without its question set: embed it in a workflow (reference: { predictor: "synthetic", skill: 2, temperature: 0.5 }) or run deno task serve --predictor synthetic --workflow FILE',
        ),
      ),
    createForCases: (cases, settings) => syntheticPredictor(cases, settings),
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
 * Builds a built-in predictor that must know a question set's cases (`synthetic`).
 *
 * @param name Predictor name.
 * @param cases The question set's cases, read once.
 * @param settings Its settings (skill, temperature, seed).
 * @returns The predictor, or null when that predictor is not built over cases (use
 *   {@linkcode createPredictor}).
 * @throws {RangeError} When no predictor has that name, or a setting is out of range.
 */
export async function createPredictorForCases(
  name: string,
  cases: Iterable<Case> | AsyncIterable<Case>,
  settings: PredictorSettings = {},
): Promise<Predictor | null> {
  const definition = PREDICTOR_REGISTRY.find((p) => p.name === name);
  if (!definition) {
    throw new RangeError(
      `Cannot create predictor "${name}": known predictors are ${predictorNames().join(", ")}`,
    );
  }
  return definition.createForCases ? await definition.createForCases(cases, settings) : null;
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
