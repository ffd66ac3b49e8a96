import assert from "node:assert/strict";
import { createEngine, ENGINE_NAMES, ENGINE_REGISTRY } from "./engines.ts";

Deno.test("the engine registry holds one definition per name of `ENGINE_NAMES`, in order", () => {
  assert.deepEqual(ENGINE_REGISTRY.map((e) => e.name), [...ENGINE_NAMES]);
});

Deno.test("`createEngine()` builds each registered engine, calibrated as its definition says", async (t) => {
  for (const definition of ENGINE_REGISTRY) {
    await t.step(definition.name, () => {
      const engine = createEngine({
        engine: definition.name,
        baseUrl: "http://127.0.0.1:8080",
        model: "m",
        headers: {},
      });
      assert.equal(engine.calibrated, definition.calibrated);
    });
  }
  assert.throws(
    () => createEngine({ engine: "grpc", baseUrl: "http://h:1", model: "m", headers: {} }),
    RangeError,
    `Cannot create engine "grpc": known engines are systemone, ollama, clef, pcd`,
  );
});
