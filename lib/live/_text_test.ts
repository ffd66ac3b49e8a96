import assert from "node:assert/strict";
import { clean, clip, displayWidth, fit } from "./_text.ts";

Deno.test("`displayWidth()` counts cells: colour sequences take none, wide characters two", async (t) => {
  const cases: [string, number][] = [
    ["plain", 5],
    ["\x1b[1;36m── now\x1b[0m", 6],
    ["▁▂▃█", 4],
    ["返金", 4],
    ["🙂", 2],
    ["e\u0301", 1],
    ["", 0],
  ];
  for (const [text, width] of cases) {
    await t.step(JSON.stringify(text), () => assert.equal(displayWidth(text), width));
  }
});

Deno.test("`clip()` cuts to the width with an ellipsis and closes an open colour", async (t) => {
  await t.step("short text is unchanged", () => assert.equal(clip("abc", 3), "abc"));
  await t.step("long text ends in …", () => assert.equal(clip("abcdef", 4), "abc…"));
  await t.step("width 0 gives nothing", () => assert.equal(clip("abc", 0), ""));
  await t.step("a wide character that does not fit is dropped whole", () => {
    const out = clip("a返金b", 3);
    assert.equal(out, "a…");
    assert.ok(displayWidth(out) <= 3);
  });
  await t.step("colour is reset after a cut", () => {
    const out = clip("\x1b[31mredredred\x1b[0m", 4);
    assert.equal(out, "\x1b[31mred…\x1b[0m");
    assert.equal(displayWidth(out), 4);
  });
});

Deno.test("`fit()` pads or clips to exactly the width", () => {
  assert.equal(fit("ab", 4), "ab  ");
  assert.equal(fit("abcdef", 4), "abc…");
  assert.equal(displayWidth(fit("返金返金", 5)), 5);
});

Deno.test("`clean()` turns control characters into spaces", () => {
  assert.equal(clean("a\x1b[2Jb\nc\td\u2028e\x07"), "a [2Jb c d e ");
});
