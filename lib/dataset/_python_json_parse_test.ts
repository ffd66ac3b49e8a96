import assert from "node:assert/strict";
import { pyDumps, PyFloat } from "./python_json.ts";
import { parsePyJson } from "./_python_json_parse.ts";

Deno.test("`parsePyJson()` then `pyDumps()` reproduces Python's output byte for byte", async (t) => {
  // Each pair: input JSON text → what Python's json.dumps(json.loads(text), ensure_ascii=False) writes.
  const cases: [string, string][] = [
    ["1.0", "1.0"],
    ["1", "1"],
    ["-0", "0"],
    ["-0.0", "-0.0"],
    ["1e-05", "1e-05"],
    ["0.00001", "1e-05"],
    ["1E5", "100000.0"],
    ["1e16", "1e+16"],
    ["1e+16", "1e+16"],
    ["15000000000000000.0", "1.5e+16"],
    ["0.1", "0.1"],
    ["0.10", "0.1"],
    ["123456789012345678", "123456789012345678"],
    ["-98765432109876543210", "-98765432109876543210"],
    ["1e400", "Infinity"],
    ["NaN", "NaN"],
    ["-Infinity", "-Infinity"],
    ['"caf\\u00e9 \\ud83d\\ude00"', '"café 😀"'],
    ['"tab\\there\\/slash"', '"tab\\there/slash"'],
    ['"\\u0007bell"', '"\\u0007bell"'],
    ['{"b":1,"a":2}', '{"b": 1, "a": 2}'],
    ['{"z": 0, "1": 1.0, "0": 2}', '{"z": 0, "1": 1.0, "0": 2}'],
    ['{"a": 1, "b": 2, "a": 3}', '{"a": 3, "b": 2}'],
    [" [ 1 , [ ] , { } , null , true , false ] ", "[1, [], {}, null, true, false]"],
    [
      '{"state": {"amount": 120.50, "items": [{"qty": 2, "price": 10.0}]}, "ok": true}',
      '{"state": {"amount": 120.5, "items": [{"qty": 2, "price": 10.0}]}, "ok": true}',
    ],
  ];
  for (const [input, expected] of cases) {
    await t.step(input, () => assert.equal(pyDumps(parsePyJson(input)), expected));
  }
});

Deno.test("`parsePyJson()` returns Maps in key order and PyFloat for floats", () => {
  const value = parsePyJson('{"1": 2.5, "0": 3}');
  assert.ok(value instanceof Map);
  assert.deepEqual([...value.keys()], ["1", "0"]);
  assert.ok(value.get("1") instanceof PyFloat);
  assert.equal((value.get("1") as PyFloat).value, 2.5);
  assert.equal(value.get("0"), 3);
});

Deno.test("`parsePyJson()` rejects text that is not one JSON value", async (t) => {
  const cases: [string, RegExp][] = [
    ["", /unexpected end at position 0/],
    ["{", /expected a string key/],
    ['{"a" 1}', /expected ':'/],
    ['{"a": 1,}', /expected a string key/],
    ["[1 2]", /expected ',' or ']'/],
    ['"open', /unterminated string/],
    ['"a\nb"', /control character in string/],
    ['"\\x"', /invalid escape/],
    ['"\\u12"', /invalid \\u escape/],
    ["01", /extra data at position 1/],
    ["1.", /extra data/],
    ["tru", /unexpected token/],
    ["{} {}", /extra data at position 3/],
  ];
  for (const [input, pattern] of cases) {
    await t.step(JSON.stringify(input), () => {
      assert.throws(() => parsePyJson(input), (error: unknown) => {
        assert.ok(error instanceof SyntaxError);
        assert.match(error.message, /^Cannot parse JSON: /);
        assert.match(error.message, pattern);
        return true;
      });
    });
  }
});
