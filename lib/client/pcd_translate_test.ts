import assert from "node:assert/strict";
import type { Question } from "../dataset/schemas.ts";
import { clipUtf8, utf8Length } from "./_utf8.ts";
import { PCD_LIMITS, pcdContext, pcdField, translateForPcd } from "./pcd_translate.ts";

const noul: Question = { type: "noul", instructions: "Is it fine?" };

Deno.test("`translateForPcd()` sends the state as JSON text and a string state as it is", () => {
  const { request } = translateForPcd({ b: [1, 2], a: "x" }, { ok: noul });
  assert.equal(request.context, '{"b":[1,2],"a":"x"}');
  assert.equal(pcdContext("plain text"), "plain text");
  assert.deepEqual(Object.keys(request), ["context", "fields"]);
});

Deno.test("`pcdField()` translates each question type as docs/engines.md says", async (t) => {
  await t.step("choice: one `name: description` line per described option", () => {
    const { field, clipped } = pcdField("team", {
      type: "choice",
      instructions: "Which team should handle this?",
      criteria: { billing: "Charges and invoices", shipping: "Delivery status", other: null },
    });
    assert.deepEqual(field, {
      name: "team",
      description:
        "Which team should handle this?\nbilling: Charges and invoices\nshipping: Delivery status",
      choices: ["billing", "shipping", "other"],
    });
    assert.equal(clipped, 0);
  });
  await t.step("choice with a list: instructions only", () => {
    const { field } = pcdField("pick", {
      type: "choice",
      instructions: "Pick",
      criteria: ["a", "b"],
    });
    assert.deepEqual(field, { name: "pick", description: "Pick", choices: ["a", "b"] });
  });
  await t.step("noul: choices exactly [false, true], criteria lines folded", () => {
    const { field } = pcdField("spam", {
      type: "noul",
      instructions: "Is this message spam?",
      criteria: { true: "Unsolicited advertising", false: "A legitimate conversation" },
    });
    assert.deepEqual(field.choices, [false, true]);
    assert.equal(
      field.description,
      "Is this message spam?\ntrue: Unsolicited advertising\nfalse: A legitimate conversation",
    );
  });
  await t.step('score: choices "0".."n-1", level texts in the description', () => {
    const { field } = pcdField("mood", {
      type: "score",
      instructions: "How frustrated is the customer?",
      criteria: ["calm", "frustrated", "very frustrated"],
    });
    assert.deepEqual(field.choices, ["0", "1", "2"]);
    assert.equal(
      field.description,
      "How frustrated is the customer?\n0: calm\n1: frustrated\n2: very frustrated",
    );
  });
});

Deno.test("`pcdField()` clips folded option texts at 1,024 bytes without splitting a character", async (t) => {
  for (const char of ["a", "é", "€", "😀"]) {
    await t.step(`options written with ${JSON.stringify(char)}`, () => {
      const criteria: Record<string, string> = {};
      for (let i = 0; i < 20; i++) criteria[`option_${i}`] = char.repeat(40);
      const { field, clipped } = pcdField("q", {
        type: "choice",
        instructions: "Which?",
        criteria,
      });
      const full = ["Which?", ...Object.entries(criteria).map(([k, v]) => `${k}: ${v}`)].join("\n");
      const size = utf8Length(field.description);
      assert.ok(size <= PCD_LIMITS.descriptionBytes, `${size} bytes`);
      assert.ok(size > PCD_LIMITS.descriptionBytes - 4, `clipped too early: ${size} bytes`);
      assert.ok(full.startsWith(field.description));
      assert.ok(!field.description.includes("\uFFFD"));
      assert.equal(clipped, utf8Length(full) - size);
      assert.deepEqual(field.choices, Object.keys(criteria), "choices are never clipped");
    });
  }
});

Deno.test("`clipUtf8()` keeps a surrogate pair whole or drops it", () => {
  assert.equal(clipUtf8("ab😀", 5), "ab");
  assert.equal(clipUtf8("ab😀", 6), "ab😀");
  assert.equal(clipUtf8("héllo", 2), "h");
});

function manyQuestions(n: number): Record<string, Question> {
  const out: Record<string, Question> = {};
  for (let i = 0; i < n; i++) out[`q${i}`] = noul;
  return out;
}

Deno.test("`translateForPcd()` accepts requests exactly at each limit", async (t) => {
  await t.step("context of 65,536 bytes", () => {
    const { request } = translateForPcd("é".repeat(32_768), { ok: noul });
    assert.equal(utf8Length(request.context), 65_536);
  });
  await t.step("63 fields", () => {
    assert.equal(translateForPcd("s", manyQuestions(63)).request.fields.length, 63);
  });
  await t.step("a 128-byte name", () => {
    translateForPcd("s", { ["n".repeat(128)]: noul });
  });
  await t.step("1,024 bytes of instructions", () => {
    const { request } = translateForPcd("s", {
      ok: { type: "noul", instructions: "i".repeat(1024) },
    });
    assert.equal(request.fields[0]?.description.length, 1024);
  });
  await t.step("256 options of 256 bytes", () => {
    const criteria = Array.from({ length: 256 }, (_, i) => String(i).padStart(256, "x"));
    translateForPcd("s", { pick: { type: "choice", instructions: "Pick", criteria } });
  });
});

Deno.test("`translateForPcd()` refuses what cannot fit, naming the limit, never truncating", async (t) => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      "context over 64 KiB",
      () => translateForPcd({ text: "x".repeat(65_536) }, { ok: noul }),
      /context is 65,547 bytes of JSON text, over pcdServer's limit of 65,536 bytes \(64 KiB\); the state is never truncated/,
    ],
    ["no question", () => translateForPcd("s", {}), /asks 0 questions; .* takes 1–63 fields/],
    [
      "64 questions",
      () => translateForPcd("s", manyQuestions(64)),
      /asks 64 questions; .*1–63 fields/,
    ],
    [
      "a 129-byte name",
      () => translateForPcd("s", { ["é".repeat(64) + "n"]: noul }),
      /the name is 129 bytes; pcdServer's field names are 1–128 bytes/,
    ],
    [
      "instructions over 1,024 bytes",
      () => translateForPcd("s", { ok: { type: "noul", instructions: "€".repeat(342) } }),
      /instructions are 1,026 bytes, over pcdServer's field description limit of 1,024 bytes \(instructions are never clipped/,
    ],
    [
      "one option",
      () => translateForPcd("s", { pick: { type: "choice", instructions: "P", criteria: ["a"] } }),
      /question "pick" .*has 1 options; a pcdServer field takes 2–256 choices/,
    ],
    [
      "257 options",
      () =>
        translateForPcd("s", {
          pick: {
            type: "choice",
            instructions: "P",
            criteria: Array.from({ length: 257 }, (_, i) => `o${i}`),
          },
        }),
      /has 257 options; a pcdServer field takes 2–256 choices/,
    ],
    [
      "an option over 256 bytes",
      () =>
        translateForPcd("s", {
          pick: { type: "choice", instructions: "P", criteria: ["a", "b".repeat(257)] },
        }),
      /option "b{40}…" is 257 bytes, over pcdServer's limit of 256 bytes per choice/,
    ],
    [
      "a repeated option",
      () =>
        translateForPcd("s", {
          pick: { type: "choice", instructions: "P", criteria: ["a", "b", "a"] },
        }),
      /option "a" is listed twice; pcdServer's choices must be distinct/,
    ],
  ];
  for (const [name, run, message] of cases) {
    await t.step(name, () => {
      assert.throws(run, (error: unknown) => {
        assert.ok(error instanceof RangeError, String(error));
        assert.match(
          error.message,
          /^Cannot (send the case to|translate question "[^"]+" for) pcdServer: /,
        );
        assert.match(error.message, message);
        return true;
      });
    });
  }
});
