/**
 * The `fitted` predictor: the small softmax-regression model vendored in `vendor/model/`
 * (trained on the train split by `deno task train`), reading the state.
 *
 * @module
 */
import type { Question } from "../../dataset/mod.ts";
import { compileModel, type LoadedModel } from "../../model/mod.ts";
import { type Distributions, type Predictor, typedDecisionsOnly } from "../predictor.ts";
import { parseStateText } from "./_state.ts";

/**
 * Creates the `fitted` predictor from a loaded model (see `loadModel`, which checks the
 * vendored files' hashes). A state sent as JSON text is parsed first, so both encodings get the
 * same answer. The workflow is identified by the request's question names and options.
 *
 * @param loaded The verified model and manifest.
 * @returns The predictor; its `predict` throws `RangeError` for questions that match no trained
 *   workflow, or several.
 * @throws {RangeError} When the model's weights do not fit its features and options.
 * @example
 * ```ts
 * import { loadModel } from "../../model/model_file.ts";
 * import { fittedPredictor } from "./fitted.ts";
 * const fitted = fittedPredictor(await loadModel());
 * if (fitted.name !== "fitted") throw new Error("name");
 * ```
 */
export function fittedPredictor(loaded: LoadedModel): Predictor {
  const compiled = compileModel(loaded.model);
  return {
    name: "fitted",
    predict(state: unknown, questions: Record<string, Question>): Distributions {
      return typedDecisionsOnly("fitted", () => compiled.predict(parseStateText(state), questions));
    },
  };
}
