import assert from "node:assert/strict";
import { fingerprint, type FingerprintInput } from "./fingerprint.ts";

const base: FingerprintInput = {
  dataset: "LocalLLaMA/typed-decisions",
  revision: "e039ebffcc280174dd354227424fb2b249f191de",
  endpoint: "http://127.0.0.1:8080/v1/systemone",
  engine: "systemone",
  model: "m",
  questionsSha256: "b".repeat(64),
  stateEncoding: "json",
};

Deno.test("`fingerprint()` is 16 hex digits and changes with every field it covers", async (t) => {
  const reference = await fingerprint(base);
  assert.match(reference, /^[0-9a-f]{16}$/);
  assert.equal(await fingerprint({ ...base }), reference, "deterministic");
  for (const key of Object.keys(base) as (keyof FingerprintInput)[]) {
    await t.step(key, async () => {
      assert.notEqual(await fingerprint({ ...base, [key]: `${base[key]}x` }), reference);
    });
  }
});
