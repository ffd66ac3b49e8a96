/**
 * The built-in predictors of the reference server, registered under their names when this module
 * is imported: `uniform` and `oracle`.
 *
 * @module
 */
import { registerPredictor } from "../predictor.ts";
import { loadTestCases } from "./_test_split.ts";
import { oraclePredictor } from "./oracle.ts";
import { uniformPredictor } from "./uniform.ts";

export { oraclePredictor } from "./oracle.ts";
export { uniformPredictor } from "./uniform.ts";

registerPredictor("uniform", () => Promise.resolve(uniformPredictor()));
registerPredictor("oracle", async () => oraclePredictor(await loadTestCases()));
