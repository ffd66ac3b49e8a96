import assert from "node:assert/strict";
import { closest } from "./suggest.ts";

Deno.test("`closest()` suggests the known name a typo most likely meant, and nothing when none is close", async (t) => {
  const flags = ["base-url", "model", "parallel", "limit", "out", "resume", "dry-run", "json"];
  const table: [string, string | undefined][] = [
    ["paralel", "parallel"],
    ["parallle", "parallel"], // transposition
    ["dryrun", "dry-run"],
    ["modle", "model"],
    ["res", "resume"], // unique prefix
    ["ou", "out"],
    ["xyz", undefined],
    ["temperature", undefined],
  ];
  for (const [typed, want] of table) {
    await t.step(
      `${typed} → ${want ?? "nothing"}`,
      () => assert.equal(closest(typed, flags), want),
    );
  }
});
