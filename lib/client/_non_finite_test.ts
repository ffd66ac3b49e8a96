import assert from "node:assert/strict";
import { AnswerValidationError } from "./errors.ts";
import { findNonFinite } from "./_non_finite.ts";
import { parseJsonBody } from "./schemas.ts";

Deno.test("`findNonFinite()` finds NaN and ±Infinity written as values, never inside strings", async (t) => {
  const table: [string, ReturnType<typeof findNonFinite>][] = [
    ['{"a": NaN}', { literal: "NaN", offset: 6 }],
    ['{"a": [0.5, Infinity]}', { literal: "Infinity", offset: 12 }],
    ['{"a":-Infinity}', { literal: "-Infinity", offset: 5 }],
    ['{"NaN": "Infinity", "b": "say \\"NaN\\""}', null],
    ['{"a": "\\\\", "b": NaN}', { literal: "NaN", offset: 17 }],
    ['{"a": -0.5, "b": nul}', null],
  ];
  for (const [text, expected] of table) {
    await t.step(text, () => assert.deepEqual(findNonFinite(text), expected));
  }
});

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

Deno.test("`parseJsonBody()` says a body is not JSON because of its NaN, as a malformed answer, not as another kind of server", () => {
  const error = thrown(() => parseJsonBody('{"answers": {"ok": {"noul": NaN}}}'));
  assert.ok(error instanceof AnswerValidationError);
  assert.equal(error.notAReply, false);
  assert.match(error.message, /body is not valid JSON: it holds NaN at character 28/);
  const page = thrown(() => parseJsonBody("<!doctype html>"));
  assert.ok(page instanceof AnswerValidationError && page.notAReply);
});
