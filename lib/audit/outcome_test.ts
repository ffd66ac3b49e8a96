import assert from "node:assert/strict";
import { compareWithVerdict } from "./outcome.ts";

Deno.test("compareWithVerdict() maps the judge's answer to an outcome", async (t) => {
  const table: [string, Record<string, number>, string, string, string | null][] = [
    ["top option is the verdict", { yes: 0.7, no: 0.2, unclear: 0.1 }, "yes", "agree", "yes"],
    ["top option differs", { yes: 0.2, no: 0.7, unclear: 0.1 }, "yes", "disagree", "no"],
    ["unclear on top", { yes: 0.2, no: 0.2, unclear: 0.6 }, "yes", "abstained", "unclear"],
    ["tied top probabilities", { yes: 0.45, no: 0.45, unclear: 0.1 }, "yes", "abstained", null],
    ["tie within 1e-9", { yes: 0.4, no: 0.4 + 1e-12, unclear: 0.2 }, "no", "abstained", null],
    [
      "a tie below the top is not a tie",
      { yes: 0.5, no: 0.25, unclear: 0.25 },
      "yes",
      "agree",
      "yes",
    ],
  ];
  for (const [name, probabilities, verdict, outcome, choice] of table) {
    await t.step(name, () => {
      assert.deepEqual(compareWithVerdict(probabilities, verdict), { outcome, choice });
    });
  }
});

Deno.test("compareWithVerdict() refuses an empty distribution", () => {
  assert.throws(() => compareWithVerdict({}, "yes"), RangeError);
});
