/**
 * The fitted decision model: features of a state (flattened JSON, hashed with FNV-1a), one
 * softmax regression per workflow question trained on the train split's gold distributions with
 * a per-question temperature, its vendored files with a manifest, prediction, and the train-split
 * prior.
 *
 * @example
 * ```ts
 * import { compileModel, loadModel } from "./mod.ts";
 * const { model } = await loadModel();
 * const compiled = compileModel(model);
 * const answer = compiled.predict(
 *   { alert: { rule: "dormant_account_use" } },
 *   { true_positive: { type: "noul", instructions: "This alert reflects genuinely malicious or unauthorised activity." } },
 * );
 * const p = answer.true_positive!;
 * if (Math.abs(p.true! + p.false! - 1) > 1e-9) throw new Error("a distribution");
 * ```
 *
 * @module
 */
export { trainModel, type TrainOptions, type TrainResult } from "./train.ts";
export {
  type FittedModel,
  type HeldOutFigures,
  MODEL_FORMAT,
  type ModelFeatureSettings,
  type ModelManifest,
  type QuestionModel,
  type WorkflowModel,
} from "./schemas.ts";
export {
  type EncodedModel,
  encodeModel,
  type LoadedModel,
  loadModel,
  MANIFEST_FILE,
  MODEL_DIR,
  type ModelDirOptions,
  type TrainingData,
  WEIGHTS_FILE,
  writeModel,
} from "./model_file.ts";
export type { WorkflowSignature } from "./identify.ts";
export { type CompiledModel, compileModel } from "./predict.ts";
export { fitPrior } from "./prior.ts";
