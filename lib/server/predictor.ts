/**
 * Pluggable predictors for the reference server.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";

/** Distribution per question, keyed as `optionsOf(question)` (noul: `true`/`false`). */
export type Distributions = Record<string, Record<string, number>>;

/** A predictor answers every question about a state with a distribution. */
export interface Predictor {
  /** Predictor name (`uniform`, `oracle`, `prior`, `fitted`). */
  name: string;
  /** Distributions per question; throws `RangeError` when it cannot answer (e.g. unknown case). */
  predict(state: unknown, questions: Record<string, Question>): Distributions;
}

/** Creates a predictor; may load files. */
export type PredictorFactory = () => Promise<Predictor>;

const registry = new Map<string, PredictorFactory>();

/**
 * Registers a predictor under a name.
 *
 * @param name Predictor name used by `--predictor`.
 * @param factory Factory that builds it.
 */
export function registerPredictor(name: string, factory: PredictorFactory): void {
  registry.set(name, factory);
}

/**
 * Names of the registered predictors.
 *
 * @returns The names, sorted.
 */
export function predictorNames(): string[] {
  return [...registry.keys()].sort();
}

/**
 * Builds a registered predictor.
 *
 * @param name Predictor name.
 * @returns The predictor.
 * @throws {RangeError} When no predictor has that name.
 */
export async function createPredictor(name: string): Promise<Predictor> {
  const factory = registry.get(name);
  if (!factory) {
    throw new RangeError(
      `Cannot create predictor "${name}": known predictors are ${predictorNames().join(", ")}`,
    );
  }
  return await factory();
}

/**
 * Runs a predictor that knows only Typed Decisions' questions (`fitted`, `prior`), turning its
 * "no trained workflow" refusal into a message that says so.
 *
 * @param name The predictor's name.
 * @param predict The prediction.
 * @returns The distributions.
 * @throws {RangeError} When the questions are not one Typed Decisions workflow's.
 */
export function typedDecisionsOnly(name: string, predict: () => Distributions): Distributions {
  try {
    return predict();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RangeError(
      `The "${name}" predictor answers Typed Decisions questions only: ${error.message}`,
    );
  }
}
