import assert from "node:assert/strict";
import { levelText } from "./levels.ts";

Deno.test("`levelText()` shows a score level's text beside its index, other answers as they are", async (t) => {
  const severity = {
    type: "score",
    criteria: ["None: a question or feedback.", "Low: an inconvenience with a workaround."],
  };
  await t.step("a level index gets its text", () => {
    assert.equal(levelText(severity, "0"), "0 — None: a question or feedback.");
    assert.equal(levelText(severity, "1", { max: 10 }), "1 — Low: an…");
    assert.equal(levelText(severity, "1", { max: 4 }), "1 — Low…");
  });
  await t.step("null, an unknown level, another type or no question stay as they are", () => {
    assert.equal(levelText(severity, null), null);
    assert.equal(levelText(severity, "7"), "7");
    assert.equal(levelText({ type: "choice", criteria: ["a", "b"] }, "1"), "1");
    assert.equal(levelText(undefined, "1"), "1");
  });
});
