import assert from "node:assert/strict";
import type { Question } from "../dataset/schemas.ts";
import { CLEF_ERROR_CODES, clefEngine, clefErrorInfo, clefUrl, parseClefReply } from "./clef.ts";
import { AnswerValidationError, EndpointError } from "./errors.ts";

const noul: Question = { type: "noul", instructions: "Fine?" };

function envelope(result: unknown): Record<string, unknown> {
  return { result, success: true, errors: [], messages: [] };
}

Deno.test("`clefUrl()` puts the model in the URL", async (t) => {
  const base = "https://api.cloudflare.com/client/v4/accounts/abc";
  const cases: [string, string, string][] = [
    [base, "@cf/cloudflare/clef", `${base}/ai/run/@cf/cloudflare/clef`],
    [`${base}/`, "default", `${base}/ai/run/@cf/cloudflare/clef`],
    [base, "@cf/cloudflare/clef-flash", `${base}/ai/run/@cf/cloudflare/clef-flash`],
    [`${base}/ai/run/@cf/x/y`, "@cf/cloudflare/clef", `${base}/ai/run/@cf/x/y`],
    ["http://127.0.0.1:9", "default", "http://127.0.0.1:9/ai/run/@cf/cloudflare/clef"],
  ];
  for (const [b, model, want] of cases) {
    await t.step(`${b} + ${model}`, () => assert.equal(clefUrl(b, model), want));
  }
});

Deno.test("clef requests carry 1–64 questions and no model in the body", async (t) => {
  const engine = clefEngine("http://h/client/v4/accounts/a");
  const ask = (n: number) => {
    const questions: Record<string, Question> = {};
    for (let i = 0; i < n; i++) questions[`q${i}`] = noul;
    return engine.build({ state: { a: 1 }, questions, model: "m", stateEncoding: "json" });
  };
  await t.step("64 questions", () => {
    const body = JSON.parse(ask(64).body);
    assert.deepEqual(Object.keys(body), ["state", "questions"]);
    assert.equal(Object.keys(body.questions).length, 64);
  });
  await t.step("65 questions", () => {
    assert.throws(
      () => ask(65),
      /^RangeError: Cannot send the case to clef: it asks 65 questions; a clef request takes 1–64/,
    );
  });
  await t.step("no question", () => assert.throws(() => ask(0), RangeError));
});

Deno.test("`parseClefReply()` unwraps the envelope and accepts 4-decimal rounding", async (t) => {
  await t.step("30 options of 1/30 rounded up to 0.0334, summing to 1.002", () => {
    // Outside 1 ± 1e-3, inside the 4-decimal rounding allowance of 30 × 0.00005.
    const options = Array.from({ length: 30 }, (_, i) => `o${i}`);
    const probabilities = Object.fromEntries(options.map((o) => [o, 0.0334]));
    const q: Record<string, Question> = {
      pick: { type: "choice", instructions: "Pick", criteria: options },
    };
    const reply = parseClefReply(
      envelope({
        model: "@cf/cloudflare/clef",
        answers: { pick: { type: "choice", probabilities } },
      }),
      q,
    );
    assert.equal(reply.model, "@cf/cloudflare/clef");
    assert.equal(reply.answers.pick?.probability, 0.0334);
    assert.equal(reply.answers.pick?.calibrated, true);
  });
  await t.step("a sum off by more than rounding explains", () => {
    assert.throws(
      () =>
        parseClefReply(
          envelope({ answers: { pick: { type: "choice", probabilities: { a: 0.6, b: 0.38 } } } }),
          { pick: { type: "choice", instructions: "Pick", criteria: ["a", "b"] } },
        ),
      (error: unknown) =>
        error instanceof AnswerValidationError &&
        /sum to 0\.980000, not 1 ± 0\.0011/.test(error.message),
    );
  });
  await t.step("no result", () => {
    assert.throws(
      () => parseClefReply({ success: true, errors: [] }, { ok: noul }),
      /result: expected/,
    );
  });
  await t.step("answers not wrapped", () => {
    assert.throws(
      () => parseClefReply({ answers: { ok: { type: "noul", noul: 1 } } }, { ok: noul }),
      /success: expected true or false/,
    );
  });
});

Deno.test("a 2xx clef reply with success: false is an endpoint error classified by its code", async (t) => {
  const fail = (code: number) => () =>
    parseClefReply(
      { result: null, success: false, errors: [{ code, message: `failed ${code}` }], messages: [] },
      { ok: noul },
    );
  await t.step("5006 invalid input: final", () => {
    assert.throws(fail(5006), (error: unknown) => {
      assert.ok(error instanceof EndpointError);
      assert.equal(error.kind, "invalid_request");
      assert.equal(error.transient, false);
      assert.match(error.message, /failed 5006 \(Cloudflare code 5006\)/);
      return true;
    });
  });
  await t.step("an unknown code: a transient backend failure", () => {
    assert.throws(fail(1234), (error: unknown) => {
      assert.ok(error instanceof EndpointError);
      assert.equal(error.kind, "unavailable");
      assert.equal(error.transient, true);
      return true;
    });
  });
});

Deno.test("`clefErrorInfo()` decides retryable and final codes from Cloudflare's table", async (t) => {
  const body = (code: number) =>
    JSON.stringify({
      result: null,
      success: false,
      errors: [{ code, message: "m" }],
      messages: [],
    });
  const cases: [number, string, boolean, boolean][] = [
    // code, kind, transient, fatal
    [3040, "overloaded", true, false],
    [3007, "timeout", true, false],
    [3036, "rate_limited", false, true],
    [5007, "unsupported_endpoint", false, true],
    [3042, "unsupported_endpoint", false, true],
    [5006, "invalid_request", false, false],
    [3006, "limit", false, false],
  ];
  for (const [code, kind, transient, fatal] of cases) {
    await t.step(String(code), () => {
      const info = clefErrorInfo(400, body(code));
      assert.equal(info?.kind, kind);
      assert.equal(info?.message, `m (Cloudflare code ${code})`);
      const error = new EndpointError(info?.kind ?? "unavailable", "x", {
        transient: info?.transient,
        fatal: info?.fatal,
      });
      assert.equal(error.transient, transient);
      assert.equal(error.fatal, fatal);
    });
  }
  await t.step("an unlisted code keeps the status's kind", () => {
    assert.equal(CLEF_ERROR_CODES[9], undefined);
    assert.equal(clefErrorInfo(500, body(9))?.kind, undefined);
    assert.equal(clefErrorInfo(500, "not json"), undefined);
  });
});

Deno.test("`clefEngine()` refuses the preset's account placeholder with the fix", () => {
  assert.throws(
    () => clefEngine("https://api.cloudflare.com/client/v4/accounts/YOUR_ACCOUNT_ID"),
    /^TypeError: Cannot use clef: the base URL still says "YOUR_ACCOUNT_ID"; put your Cloudflare account id/,
  );
});
