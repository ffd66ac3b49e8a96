import assert from "node:assert/strict";
import { fmix32, hashString32, unitDraw } from "./hash32.ts";

Deno.test("`fmix32()` is MurmurHash3's finalizer on the low 32 bits", () => {
  assert.equal(fmix32(0), 0);
  assert.equal(fmix32(1), fmix32(1 + 2 ** 32));
  assert.equal(fmix32(-1), fmix32(0xffffffff));
  assert.equal(fmix32(1), 0x514e28b7);
});

Deno.test("`hashString32()` depends on the text and the seed", () => {
  assert.equal(hashString32("case-1", 3), hashString32("case-1", 3));
  assert.notEqual(hashString32("case-1", 3), hashString32("case-1", 4));
  assert.notEqual(hashString32("case-1", 3), hashString32("case-2", 3));
});

Deno.test("`unitDraw()` keeps the fault draws' values", () => {
  assert.deepEqual([unitDraw(0, 0), unitDraw(5, 3), unitDraw(2 ** 33 + 1, 2 ** 34 + 7)], [
    0.508663657354191,
    0.030082467012107372,
    0.12647580192424357,
  ]);
});
