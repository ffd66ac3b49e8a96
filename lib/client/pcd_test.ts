import assert from "node:assert/strict";
import type { Question } from "../dataset/schemas.ts";
import { AnswerValidationError } from "./errors.ts";
import { parsePcdReply, pcdEngine, pcdErrorInfo, pcdUrl } from "./pcd.ts";

const questions: Record<string, Question> = {
  team: {
    type: "choice",
    instructions: "Which team?",
    criteria: { billing: "Charges", other: null },
  },
  spam: { type: "noul", instructions: "Spam?" },
  mood: { type: "score", instructions: "How upset?", criteria: ["calm", "upset", "furious"] },
};

function reply(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "chat-4b",
    values: { team: "billing", spam: false, mood: "1" },
    fields: {
      team: { value: "billing", probability: 0.7, probabilities: { billing: 0.7, other: 0.3 } },
      spam: { value: false, probability: 0.9, probabilities: { false: 0.9, true: 0.1 } },
      mood: { value: "1", probability: 0.5, probabilities: { "0": 0.2, "1": 0.5, "2": 0.3 } },
      ...overrides,
    },
    metrics: { prompt_tokens: 321, timings: { total_ms: 12 }, cache: { hit: false } },
  };
}

Deno.test("`pcdUrl()` appends /v1/pcd/decode the way the System One URL rules do", async (t) => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/pcd/decode"],
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/pcd/decode"],
    ["http://h/v1", "http://h/v1/pcd/decode"],
    ["http://h/v1/pcd/decode", "http://h/v1/pcd/decode"],
    ["http://h/prefix", "http://h/prefix/v1/pcd/decode"],
  ];
  for (const [base, want] of cases) await t.step(base, () => assert.equal(pcdUrl(base), want));
});

Deno.test("`parsePcdReply()` normalises fields to the engine seam's shape, uncalibrated", () => {
  const parsed = parsePcdReply(reply(), questions);
  assert.equal(parsed.model, "chat-4b");
  assert.equal(parsed.inputTokens, 321);
  assert.deepEqual(parsed.answers.team, {
    type: "choice",
    probabilities: { billing: 0.7, other: 0.3 },
    probability: 0.7,
    calibrated: false,
    native: { value: "billing" },
  });
  assert.deepEqual(parsed.answers.spam?.probabilities, { true: 0.1, false: 0.9 });
  assert.deepEqual(Object.keys(parsed.answers.spam?.probabilities ?? {}), ["true", "false"]);
  assert.equal(parsed.answers.spam?.probability, 0.9);
  // Expected level from the probabilities: 0·0.2 + 1·0.5 + 2·0.3 = 1.1.
  assert.ok(Math.abs((parsed.answers.mood?.native?.score as number) - 1.1) < 1e-12);
  assert.equal(parsed.answers.mood?.calibrated, false);
});

Deno.test("`parsePcdReply()` refuses malformed fields with every problem named", async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ["no fields", { values: {} }, /fields: missing/],
    ["a missing field", reply({ spam: undefined }), /fields\.spam: missing/],
    [
      "a choice missing from probabilities",
      reply({ team: { value: "billing", probabilities: { billing: 1 } } }),
      /fields\.team\.probabilities: missing "other"/,
    ],
    [
      "an extra choice",
      reply({ team: { value: "billing", probabilities: { billing: 0.5, other: 0.3, x: 0.2 } } }),
      /unexpected "x"/,
    ],
    [
      "a sum outside 1 ± 1e-3",
      reply({ team: { value: "billing", probabilities: { billing: 0.7, other: 0.2 } } }),
      /sum to 0\.900000, not 1 ± 0\.001/,
    ],
    [
      "a probability out of range",
      reply({ spam: { value: false, probabilities: { false: 1.2, true: -0.2 } } }),
      /fields\.spam\.probabilities\.true: -0\.2 is not a finite number in \[0, 1\]; fields\.spam\.probabilities\.false: 1\.2 is not/,
    ],
    [
      "a yes/no value that is not a boolean",
      reply({ spam: { value: "false", probabilities: { false: 0.9, true: 0.1 } } }),
      /fields\.spam\.value: "false" is not one of the choices false, true/,
    ],
    [
      "a value that is not a choice",
      reply({ mood: { value: "3", probabilities: { "0": 0.2, "1": 0.5, "2": 0.3 } } }),
      /fields\.mood\.value: "3" is not one of the choices "0", "1", "2"/,
    ],
  ];
  for (const [name, body, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => parsePcdReply(body, questions), (error: unknown) => {
        assert.ok(error instanceof AnswerValidationError);
        assert.match(error.issues.join("; "), message);
        return true;
      });
    });
  }
});

Deno.test("pcd answers warn when a description was clipped", () => {
  const criteria: Record<string, string> = {};
  for (let i = 0; i < 30; i++) criteria[`o${i}`] = "a long description of this option ".repeat(2);
  const long: Record<string, Question> = {
    pick: { type: "choice", instructions: "Pick", criteria },
  };
  const probabilities = Object.fromEntries(Object.keys(criteria).map((k) => [k, 1 / 30]));
  const parsed = parsePcdReply({ fields: { pick: { value: "o0", probabilities } } }, long);
  assert.match(
    parsed.answers.pick?.warnings?.[0] ?? "",
    /clipped at 1,024 bytes \(\d+ bytes of option texts not sent\)/,
  );
  const request = JSON.parse(
    pcdEngine("http://h").build({ state: "s", questions: long, model: "m", stateEncoding: "json" })
      .body,
  );
  assert.equal(new TextEncoder().encode(request.fields[0].description).length, 1024);
});

Deno.test("`pcdErrorInfo()` reads pcdServer's error envelope", async (t) => {
  await t.step("a limit code is kind limit, not retried", () => {
    const info = pcdErrorInfo(
      400,
      '{"error":{"code":"context_overflow","message":"the request needs about 9000 tokens"}}',
    );
    assert.deepEqual(info, {
      kind: "limit",
      transient: false,
      message: "the request needs about 9000 tokens [context_overflow]",
    });
  });
  await t.step("the field is named", () => {
    const info = pcdErrorInfo(
      400,
      '{"error":{"code":"invalid_request","message":"unknown key","field":"fields[0]"}}',
    );
    assert.equal(info?.message, "unknown key (fields[0]) [invalid_request]");
    assert.equal(info?.kind, undefined);
  });
  await t.step("404 says the server is not a pcdServer", () => {
    const info = pcdErrorInfo(404, '{"error":{"code":404,"message":"File Not Found","type":"x"}}');
    assert.equal(info?.kind, "unsupported_endpoint");
    assert.match(info?.message ?? "", /does not serve pcdServer's POST \/v1\/pcd\/decode/);
  });
  await t.step("a body that is not pcdServer's leaves the defaults", () => {
    assert.equal(pcdErrorInfo(500, "<html>oops</html>"), undefined);
  });
});
