/**
 * The built-in predictors of the reference server, registered under their names when this module
 * is imported: `uniform`, `oracle` (over the verified vendored test split), `prior` (the train
 * split's mean gold distributions), `fitted` (the vendored model trained on the train split) and
 * `judge` (transparent lexical rules answering arbitrary questions, for audits).
 *
 * @module
 */
import { registerPredictor } from "../predictor.ts";
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

registerPredictor("uniform", () => Promise.resolve(uniformPredictor()));
// `judge`: rule-based stand-in for a judge model, for audits (lib/audit); see ./judge.ts.
registerPredictor("judge", () => Promise.resolve(judgePredictor()));
registerPredictor(
  "oracle",
  async () => oraclePredictor((await loadDataset({ split: "test" })).cases),
);
// `prior` (mean train gold distributions) and `fitted` (vendor/model/, trained on train): lib/model.
registerPredictor(
  "prior",
  async () => priorPredictor((await loadDataset({ split: "train" })).cases),
);
registerPredictor("fitted", async () => fittedPredictor(await loadModel()));
