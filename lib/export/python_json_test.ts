// pythonJsonDumps against Python itself: the same bytes as `json.dumps(value, sort_keys=True,
// separators=(",", ":"))` for control characters, DEL, accents, CJK, astral characters (surrogate
// pairs), quotes and backslashes, and keys whose code-point order differs from UTF-16 order.
import assert from "node:assert/strict";
import { pythonJsonDumps } from "./_python_json.ts";

Deno.test("pythonJsonDumps writes what Python's json.dumps writes", async () => {
  const values = [
    { raw: "plain", reference: [] },
    { raw: 'tab\there\nnew "q" \\ \u0001 \u007f é 中文 😀 \u2028', reference: ["ß", "x"] },
    { "\uffff": 1, "😀": 2, a: [true, false, null, -3] },
  ];
  const out = await new Deno.Command("python3", {
    args: [
      "-c",
      'import json,sys\nfor v in json.load(sys.stdin): print(json.dumps(v, sort_keys=True, separators=(",", ":")))',
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = out.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(values)));
  await writer.close();
  const { stdout, code } = await out.output();
  assert.equal(code, 0);
  const expected = new TextDecoder().decode(stdout).trimEnd().split("\n");
  assert.deepEqual(values.map(pythonJsonDumps), expected);
  assert.throws(() => pythonJsonDumps({ x: 0.5 }), TypeError);
});
