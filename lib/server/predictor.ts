/**
 * What a predictor of the reference server is (the registry of the built-in ones is
 * `predictors/mod.ts`).
 *
 * @module
 */
import type { Case, Question } from "../dataset/mod.ts";

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
  /**
   * Builds the predictor over a question set's cases, for a predictor that must know them (their
   * states and labels, as `synthetic` does); `create` then refuses, saying so.
   *
   * @param cases The question set's cases, read once.
   * @param settings The workflow's or the command line's settings.
   * @returns The predictor.
   * @throws {RangeError} When a setting is out of range.
   */
  createForCases?(
    cases: Iterable<Case> | AsyncIterable<Case>,
    settings: PredictorSettings,
  ): Promise<Predictor>;
}

/** Settings of a predictor built over a question set (`synthetic`'s). */
export interface PredictorSettings {
  /** Added to the gold option's logit. @default 1 */
  skill?: number | undefined;
  /** Logits are divided by it (> 0). @default 1 */
  temperature?: number | undefined;
  /** Seed of the noise. @default 0 */
  seed?: number | undefined;
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
