import assert from "node:assert/strict";
import { caseKey, poissonWeights } from "./_poisson.ts";

Deno.test("the Poisson bootstrap's weights and case keys keep their values", async () => {
  // Pinned: a bootstrap interval written by an earlier version is reproduced bit for bit.
  const parts: number[] = [];
  for (const seed of [0, 7, -3, 2 ** 40 + 5]) {
    for (const id of ["", "case-1", "T-100001", "ünï©ødé"]) {
      parts.push(...poissonWeights(seed, id, new Uint8Array(64)));
      parts.push(...caseKey(seed, id));
    }
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(parts.join(",")));
  assert.equal(
    [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""),
    "5493e6f42b1cf54265e3da9f363a05beb2a8cffa4189719638652dbf9879397e",
  );
  assert.deepEqual(
    [...poissonWeights(7, "case-1", new Uint8Array(16))],
    [0, 0, 2, 0, 0, 0, 3, 1, 0, 1, 1, 2, 0, 1, 0, 0],
  );
  assert.deepEqual(caseKey(7, "case-1"), [4095100123, 3460808]);
});
