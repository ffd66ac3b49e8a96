import assert from "node:assert/strict";
import { randomInt, seededRandom, shuffle } from "./rng.ts";

Deno.test("`seededRandom()` repeats the same sequence for the same seed", () => {
  const a = seededRandom(42);
  const b = seededRandom(42);
  const xs = Array.from({ length: 100 }, () => a());
  const ys = Array.from({ length: 100 }, () => b());
  assert.deepEqual(xs, ys);
});

Deno.test("`seededRandom()` keeps its published sequence (mulberry32) so old runs reproduce", () => {
  const r = seededRandom(0);
  assert.deepEqual([r(), r(), r()], [
    0.26642920868471265,
    0.0003297457005828619,
    0.2232720274478197,
  ]);
  const s = seededRandom(42);
  assert.deepEqual([s(), s(), s()], [0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
});

Deno.test("`seededRandom()` gives different sequences for different seeds", () => {
  const a = seededRandom(1);
  const b = seededRandom(2);
  assert.notDeepEqual([a(), a(), a()], [b(), b(), b()]);
});

Deno.test("`seededRandom()` stays in [0, 1) with a mean near 1/2", () => {
  const r = seededRandom(7);
  let sum = 0;
  for (let i = 0; i < 10_000; i++) {
    const x = r();
    assert.ok(x >= 0 && x < 1, `value ${x} out of range`);
    sum += x;
  }
  assert.ok(Math.abs(sum / 10_000 - 0.5) < 0.02);
});

Deno.test("`seededRandom()` reduces seeds modulo 2^32 and accepts negatives", () => {
  const a = seededRandom(5);
  const b = seededRandom(5 + 2 ** 32);
  assert.equal(a(), b());
  const c = seededRandom(-1);
  const d = seededRandom(2 ** 32 - 1);
  assert.equal(c(), d());
});

Deno.test("`seededRandom()` rejects a seed that is not an integer", async (t) => {
  for (const seed of [0.5, Number.NaN, Infinity]) {
    await t.step(String(seed), () => {
      assert.throws(() => seededRandom(seed), RangeError);
    });
  }
});

Deno.test("`randomInt()` draws every value of [0, n) and nothing else", () => {
  const r = seededRandom(3);
  const seen = new Set<number>();
  for (let i = 0; i < 1000; i++) seen.add(randomInt(r, 5));
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4]);
  assert.throws(() => randomInt(r, 0), RangeError);
});

Deno.test("`shuffle()` returns a seeded permutation and leaves the input alone", () => {
  const input = Array.from({ length: 20 }, (_, i) => i);
  const a = shuffle(input, 11);
  const b = shuffle(input, 11);
  assert.deepEqual(a, b);
  assert.deepEqual(input, Array.from({ length: 20 }, (_, i) => i));
  assert.deepEqual([...a].sort((x, y) => x - y), input);
  assert.notDeepEqual(a, input);
  assert.notDeepEqual(shuffle(input, 12), a);
  assert.deepEqual(shuffle([], 1), []);
});
