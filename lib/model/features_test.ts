import assert from "node:assert/strict";
import { checkDimension, featureTokens, featurize, wordsOf } from "./features.ts";
import { fnv1a32 } from "./_hash.ts";

Deno.test("`featureTokens()` turns each kind of leaf into its documented features", async (t) => {
  const tokens = featureTokens({
    tier: "Enterprise",
    seats: 3,
    value: -4642.5,
    mfa: false,
    date: null,
    tags: ["a", "b"],
    text: "Please CANCEL my plan, please",
  });
  const cases: [string, number][] = [
    ["tier=enterprise", 1],
    ["seats", Math.log1p(3) * 0.25],
    ["seats#b=2", 1],
    ["seats=#3", 1],
    ["value", -Math.log1p(4642.5) * 0.25],
    ["value#b=-12", 1],
    ["mfa=false", 1],
    ["date=null", 1],
    ["tags#n=2", 1],
    ["tags[]=a", 1],
    ["text~please", 2],
    ["text~cancel", 1],
    ["text=please cancel my plan, please", 1],
  ];
  for (const [name, value] of cases) {
    await t.step(name, () => assert.equal(tokens.get(name), value));
  }
  await t.step("no exact token for non-integers and no words for one-word strings", () => {
    assert.equal([...tokens.keys()].some((k) => k.startsWith("value=#")), false);
    assert.equal([...tokens.keys()].some((k) => k.startsWith("tier~")), false);
  });
});

Deno.test("`featureTokens()` adds word pairs only when `bigrams` is on", () => {
  assert.equal(featureTokens({ t: "red fox" }).get("t~red_fox"), undefined);
  assert.equal(featureTokens({ t: "red fox" }, { bigrams: true }).get("t~red_fox"), 1);
});

Deno.test("`featureTokens()` relates equal strings and comparable numbers across paths", async (t) => {
  const tokens = featureTokens({
    invoice: {
      id: "INV-7",
      total_usd: 300,
      lines: [{ qty: 10, total_usd: 200 }, { qty: 5, total_usd: 100 }],
    },
    history: { prior_ids: ["INV-1", "INV-7"] },
    delivery: { received_qty: 10 },
  });
  await t.step("shared string → eq token", () => {
    assert.equal(tokens.get("eq:history.prior_ids[]|invoice.id"), 1);
  });
  await t.step("sum of a numeric field over array items compares with its total", () => {
    assert.equal(tokens.get("cmp:invoice.total_usd|sum:invoice.lines[].total_usd=eq"), 1);
  });
  await t.step("suffix-matched keys compare, by relative difference", () => {
    // qty 10 (item 0) equals received 10; qty 5 (item 1) is 50% lower
    assert.equal(tokens.get("cmp:delivery.received_qty|invoice.lines[].qty=eq"), 1);
    assert.equal(tokens.get("cmp:delivery.received_qty|invoice.lines[].qty=+5"), 1);
  });
  await t.step("items at different array positions are not compared", () => {
    assert.equal(
      tokens.get("cmp:invoice.lines[].total_usd|invoice.lines[].total_usd=+4"),
      undefined,
    );
  });
  await t.step("relations off → none of these", () => {
    const plain = featureTokens({ a: { id: "INV-7" }, b: { id: "INV-7" } }, { relations: false });
    assert.equal([...plain.keys()].some((k) => k.startsWith("eq:") || k.startsWith("cmp:")), false);
  });
});

Deno.test("`featurize()` hashes each feature into bucket fnv1a32(name) mod dimension", () => {
  const v = featurize({ tier: "gold" }, { dimension: 1024, relations: false });
  assert.deepEqual([...v.indices], [fnv1a32("tier=gold") % 1024]);
  assert.deepEqual([...v.values], [1]);
});

Deno.test("`featurize()` returns a sorted, unit-length vector, the same on every call", () => {
  const state = {
    account: { tier: "pro", seats: 12 },
    thread: [{ role: "customer", text: "My invoice was charged twice, please refund" }],
  };
  const a = featurize(state);
  const b = featurize(structuredClone(state));
  assert.deepEqual(a, b);
  for (let i = 1; i < a.indices.length; i++) assert.ok(a.indices[i]! > a.indices[i - 1]!);
  assert.ok(a.indices.every((i) => i < 262144));
  assert.ok(Math.abs(Math.hypot(...a.values) - 1) < 1e-12);
});

Deno.test("`featurize()` leaves an empty state as the zero vector", () => {
  const v = featurize({}, { relations: false });
  assert.equal(v.indices.length, 0);
});

Deno.test("`wordsOf()` splits like /[\\p{L}\\p{N}]+/gu", async (t) => {
  const texts = [
    "i’ve been charged twice: €40!",
    "naïve café — 日本語 テキスト",
    "emoji🙂between words",
    "x2 follow-up 3.5 v1_beta",
    "",
    "lone \ud800 surrogate",
  ];
  for (const text of texts) {
    await t.step(JSON.stringify(text), () => {
      assert.deepEqual(wordsOf(text), [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]));
    });
  }
});

Deno.test("`checkDimension()` rejects a size that is not a power of two in range", async (t) => {
  for (const bad of [0, 100, 255, 1000, 2 ** 31, 1.5]) {
    await t.step(String(bad), () => assert.throws(() => checkDimension(bad), RangeError));
  }
  assert.equal(checkDimension(4096), 4096);
});
