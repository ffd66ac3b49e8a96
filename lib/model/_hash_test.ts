import assert from "node:assert/strict";
import { fnv1a32 } from "./_hash.ts";

function referenceFnv(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash;
}

Deno.test("`fnv1a32()` matches the published FNV-1a 32-bit test vectors", async (t) => {
  const vectors: [string, number][] = [
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["foobar", 0xbf9cf968],
  ];
  for (const [text, expected] of vectors) {
    await t.step(JSON.stringify(text), () => assert.equal(fnv1a32(text), expected));
  }
});

Deno.test("`fnv1a32()` hashes the UTF-8 bytes TextEncoder produces", async (t) => {
  const texts = [
    "café",
    "I’ve",
    "€40",
    "日本語",
    "emoji 🙂 here",
    "lone \ud800 surrogate",
    "\udc00x",
  ];
  for (const text of texts) {
    await t.step(JSON.stringify(text), () => assert.equal(fnv1a32(text), referenceFnv(text)));
  }
});

Deno.test("`fnv1a32()` continues a prefix's hash when given it as the seed", () => {
  assert.equal(fnv1a32("~word", fnv1a32("thread[].text")), fnv1a32("thread[].text~word"));
  assert.equal(fnv1a32("🙂", fnv1a32("é")), fnv1a32("é🙂"));
});
