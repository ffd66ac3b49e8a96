import assert from "node:assert/strict";
import { createPredictor, PREDICTOR_REGISTRY, predictorNames } from "./mod.ts";

Deno.test("the predictor registry lists each built-in predictor once, and `createPredictor()` builds it by name", async () => {
  const names = PREDICTOR_REGISTRY.map((p) => p.name);
  assert.deepEqual(names, ["fitted", "judge", "oracle", "prior", "synthetic", "uniform"]);
  assert.deepEqual(predictorNames(), [...names].sort());
  const uniform = await createPredictor("uniform");
  assert.equal(uniform.name, "uniform");
  await assert.rejects(
    createPredictor("magic"),
    RangeError,
    `Cannot create predictor "magic": known predictors are fitted, judge, oracle, prior, synthetic, uniform`,
  );
});
