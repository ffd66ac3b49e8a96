import assert from "node:assert/strict";
import { drawSample, sampleAllocation } from "./sample.ts";

Deno.test("`sampleAllocation()` gives every lane one case, then the rest by lane size", async (t) => {
  const lanes = new Map([["a", 61], ["b", 31], ["c", 11], ["d", 1]]);
  await t.step("10 of 104: one each, then 6 of the 100 left shared 60:30:10", () => {
    // Exact shares of 6: 3.6, 1.8, 0.6, 0 → wholes 3, 1, 0, 0 (4); the 2 left by remainder: b (.8),
    // then a (.6, tied with c, and a is seen first).
    assert.deepEqual(Object.fromEntries(sampleAllocation(lanes, 10, 0)), {
      a: 5,
      b: 3,
      c: 1,
      d: 1,
    });
  });
  await t.step("fewer cases than lanes: that many lanes get one", () => {
    const two = sampleAllocation(lanes, 2, 3);
    assert.equal(two.size, 2);
    assert.deepEqual([...two.values()], [1, 1]);
  });
  await t.step("as many cases as the set: every case", () => {
    assert.deepEqual(sampleAllocation(lanes, 500, 0), lanes);
  });
  await t.step("a lane never gets more than it has", () => {
    const small = new Map([["a", 2], ["b", 50]]);
    const got = sampleAllocation(small, 40, 0);
    assert.ok((got.get("a") ?? 0) <= 2);
    assert.equal([...got.values()].reduce((x, y) => x + y, 0), 40);
  });
});

Deno.test("`drawSample()` is reproducible, stratified and in set order", () => {
  const population = Array.from({ length: 50 }, (_, i) => ({
    id: `c${String(i).padStart(2, "0")}`,
    lane: i < 40 ? "big" : i < 48 ? "mid" : "tiny",
  }));
  const a = drawSample(population, { size: 10, seed: 7 });
  assert.deepEqual(drawSample(population, { size: 10, seed: 7 }), a);
  assert.notDeepEqual(drawSample(population, { size: 10, seed: 8 }), a);
  assert.equal(a.length, 10);
  assert.deepEqual(a, [...a].sort(), "set order");
  const lanes = new Set(a.map((id) => population.find((c) => c.id === id)?.lane));
  assert.deepEqual(lanes, new Set(["big", "mid", "tiny"]));
  assert.throws(() => drawSample(population, { size: 0, seed: 0 }), RangeError);
  assert.throws(() => drawSample(population, { size: 3, seed: -1 }), RangeError);
});
