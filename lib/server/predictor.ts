/**
 * What a predictor of the reference server is (the registry of the built-in ones is
 * `predictors/mod.ts`).
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

/** One predictor the reference server can answer with, in `PREDICTOR_REGISTRY`. */
export interface PredictorDefinition {
  /** The name `--predictor` and a workflow's `reference.predictor` take. */
  readonly name: string;
  /** What it answers, one line. */
  readonly description: string;
  /**
   * Builds the predictor; may load files (the vendored dataset or model).
   *
   * @returns The predictor.
   */
  create(): Promise<Predictor>;
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
