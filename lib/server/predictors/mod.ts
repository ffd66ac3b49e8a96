/**
 * The built-in predictors of the reference server, registered under their names when this module
 * is imported: `uniform` and `oracle` (over the verified vendored test split).
 *
 * @module
 */
import { registerPredictor } from "../predictor.ts";
import { loadDataset } from "../../dataset/mod.ts";
import { judgePredictor } from "./judge.ts";
import { oraclePredictor } from "./oracle.ts";
import { uniformPredictor } from "./uniform.ts";

export { judgePredictor } from "./judge.ts";
export { oraclePredictor } from "./oracle.ts";
export { uniformPredictor } from "./uniform.ts";

registerPredictor("uniform", () => Promise.resolve(uniformPredictor()));
// `judge`: rule-based stand-in for a judge model, for audits (lib/audit); see ./judge.ts.
registerPredictor("judge", () => Promise.resolve(judgePredictor()));
registerPredictor(
  "oracle",
  async () => oraclePredictor((await loadDataset({ split: "test" })).cases),
);
