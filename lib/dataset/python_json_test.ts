import assert from "node:assert/strict";
import { pyDumps, PyFloat, pyFloatRepr, pyQuote, type PyValue } from "./python_json.ts";

Deno.test("`pyFloatRepr()` writes floats as Python's repr does", async (t) => {
  const cases: [number, string][] = [
    [1, "1.0"],
    [-1, "-1.0"],
    [0, "0.0"],
    [-0, "-0.0"],
    [0.1, "0.1"],
    [0.5, "0.5"],
    [0.036667, "0.036667"],
    [1 / 3, "0.3333333333333333"],
    [0.1 + 0.2, "0.30000000000000004"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [0.000123, "0.000123"],
    [0.0000123, "1.23e-05"],
    [1e-7, "1e-07"],
    [5e-324, "5e-324"],
    [123456.789, "123456.789"],
    [1e15, "1000000000000000.0"],
    [9999999999999998, "9999999999999998.0"],
    [1e16, "1e+16"],
    [1.5e16, "1.5e+16"],
    [1e22, "1e+22"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [123456789012345678, "1.2345678901234568e+17"],
    [NaN, "NaN"],
    [Infinity, "Infinity"],
    [-Infinity, "-Infinity"],
  ];
  for (const [value, expected] of cases) {
    await t.step(`${expected}`, () => assert.equal(pyFloatRepr(value), expected));
  }
});

Deno.test("`pyQuote()` escapes like json.dumps with ensure_ascii=False", async (t) => {
  const cases: [string, string][] = [
    ["plain", '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["back\\slash", '"back\\\\slash"'],
    ["a\nb\rc\td", '"a\\nb\\rc\\td"'],
    ["\b\f", '"\\b\\f"'],
    ["\u0000\u0001\u001f", '"\\u0000\\u0001\\u001f"'],
    ["\u007f", '"\u007f"'],
    ["café ünïcode — “quotes” €", '"café ünïcode — “quotes” €"'],
    ["emoji 😀 and 中文", '"emoji 😀 and 中文"'],
    ["slash / stays", '"slash / stays"'],
    ["\u2028\u2029", '"\u2028\u2029"'],
  ];
  for (const [value, expected] of cases) {
    await t.step(JSON.stringify(value), () => assert.equal(pyQuote(value), expected));
  }
});

Deno.test("`pyDumps()` uses Python's separators and keeps ints and floats apart", async (t) => {
  const cases: [string, PyValue, string][] = [
    ["int", 1, "1"],
    ["float wrapper", new PyFloat(1), "1.0"],
    ["non-integral number", 0.25, "0.25"],
    ["negative zero int", -0, "0"],
    ["big int as bigint", 123456789012345678n, "123456789012345678"],
    ["integral number beyond 2^53 prints as an int", 2 ** 60, "1152921504606846976"],
    ["null and booleans", [null, true, false], "[null, true, false]"],
    ["empty containers", [[], {}, new Map()], "[[], {}, {}]"],
    ["nested", { a: [1, new PyFloat(2), { b: "c" }] }, '{"a": [1, 2.0, {"b": "c"}]}'],
    [
      "Map keeps integer-like keys in insertion order",
      new Map<string, PyValue>([["z", 1], ["1", 2], ["0", 3]]),
      '{"z": 1, "1": 2, "0": 3}',
    ],
    ["keys are escaped", new Map([['k"\n', 1]]), '{"k\\"\\n": 1}'],
    ["floats in exponent form", [new PyFloat(1e-5), new PyFloat(1e16)], "[1e-05, 1e+16]"],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(name, () => assert.equal(pyDumps(value), expected));
  }
});

Deno.test("`pyDumps()` rejects values JSON cannot hold", async (t) => {
  const cases: [string, unknown][] = [
    ["undefined", undefined],
    ["undefined inside an object", { a: undefined }],
    ["function", () => 1],
    ["Date", new Date(0)],
    ["symbol", Symbol("x")],
  ];
  for (const [name, value] of cases) {
    await t.step(name, () => {
      assert.throws(() => pyDumps(value as PyValue), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^Cannot serialize value: type '.+' is not JSON serializable$/);
        return true;
      });
    });
  }
});
