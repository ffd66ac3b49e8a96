/**
 * The built-in predictors of the reference server, registered under their names when this module
 * is imported: `uniform` and `oracle` (over the verified vendored test split).
 *
 * @module
 */
import { registerPredictor } from "../predictor.ts";
import { loadDataset } from "../../dataset/mod.ts";
import { oraclePredictor } from "./oracle.ts";
import { uniformPredictor } from "./uniform.ts";

export { oraclePredictor } from "./oracle.ts";
export { uniformPredictor } from "./uniform.ts";

registerPredictor("uniform", () => Promise.resolve(uniformPredictor()));
registerPredictor(
  "oracle",
  async () => oraclePredictor((await loadDataset({ split: "test" })).cases),
);
