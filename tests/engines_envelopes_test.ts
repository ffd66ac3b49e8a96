// Each provider envelope over real HTTP on loopback, error bodies included: pcdServer's
// `{"error": {"code", "message", "field"}}`, Cloudflare's `{result, success, errors, messages}` and
// OpenRouter's `{"error": {"code", "message", "metadata"}}`, as the reference server emulates them
// (and, for errors it cannot inject, as a small stub server answers them).
import assert from "node:assert/strict";
import { askCase } from "../lib/client/ask.ts";
import { clefEngine } from "../lib/client/clef.ts";
import type { Engine } from "../lib/client/engine.ts";
import { EndpointError } from "../lib/client/errors.ts";
import { pcdEngine } from "../lib/client/pcd.ts";
import { systemOneEngine } from "../lib/client/systemone.ts";
import { send } from "../lib/client/transport.ts";
import type { Question } from "../lib/dataset/schemas.ts";
import { startReferenceServer } from "../lib/server/mod.ts";

const noul: Question = { type: "noul", instructions: "Is it fine?" };
const questions: Record<string, Question> = {
  pick: { type: "choice", instructions: "Which?", criteria: { a: "the a", b: null, c: "the c" } },
  level: { type: "score", instructions: "How much?", criteria: ["low", "mid", "high"] },
  ok: noul,
};

async function postJson(url: string, body: unknown) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

/** A loopback server answering every request with one fixed status and body. */
function stub(status: number, body: unknown): Deno.HttpServer<Deno.NetAddr> & { url: string } {
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (request) => {
      await request.body?.cancel();
      return new Response(JSON.stringify(body), {
        status,
        headers: { "content-type": "application/json" },
      });
    },
  );
  return Object.assign(server, { url: `http://127.0.0.1:${server.addr.port}` });
}

async function ask(engine: Engine, q: Record<string, Question> = questions, retries = 2) {
  const request = engine.build({
    state: { a: 1 },
    questions: q,
    model: "m",
    stateEncoding: "json",
  });
  return await askCase(engine, request, q, { retries, backoffMs: 1 });
}

function fields(n: number) {
  return Array.from(
    { length: n },
    (_, i) => ({ name: `f${i}`, description: "d", choices: [false, true] }),
  );
}

Deno.test("pcdServer route answers `{model, values, fields, metrics}` that the pcd engine reads", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const engine = pcdEngine(server.url);
  const request = engine.build({ state: { a: 1 }, questions, model: "m", stateEncoding: "json" });
  const raw = await postJson(request.url, JSON.parse(request.body));
  assert.equal(raw.status, 200);
  assert.deepEqual(Object.keys(raw.json), ["model", "values", "fields", "metrics"]);
  assert.deepEqual(raw.json.values, { pick: "a", level: "0", ok: false });
  assert.deepEqual(raw.json.fields.ok, {
    value: false,
    probability: 0.5,
    probabilities: { false: 0.5, true: 0.5 },
  });
  assert.equal(typeof raw.json.metrics.prompt_tokens, "number");
  const outcome = await ask(engine);
  assert.equal(outcome.error, null);
  assert.deepEqual(outcome.reply?.answers.ok?.probabilities, { true: 0.5, false: 0.5 });
  assert.equal(outcome.reply?.answers.level?.native?.score, 1);
  assert.equal(outcome.reply?.inputTokens, raw.json.metrics.prompt_tokens);
});

Deno.test("pcdServer route refuses each limit with pcdServer's error body", async (t) => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const url = `${server.url}/v1/pcd/decode`;
  const field = { name: "f", description: "d", choices: ["a", "b"] };
  const cases: [string, unknown, string, string | undefined][] = [
    [
      "context over 64 KiB",
      { context: "x".repeat(65_537), fields: [field] },
      "context_too_large",
      "context",
    ],
    ["no field", { context: "c", fields: [] }, "field_count", "fields"],
    ["64 fields", { context: "c", fields: fields(64) }, "field_count", "fields"],
    [
      "a 129-byte name",
      { context: "c", fields: [{ ...field, name: "n".repeat(129) }] },
      "name_too_long",
      "fields[0].name",
    ],
    [
      "a repeated name",
      { context: "c", fields: [field, field] },
      "duplicate_name",
      "fields[1].name",
    ],
    [
      "a 1,025-byte description",
      { context: "c", fields: [{ ...field, description: "d".repeat(1025) }] },
      "description_too_long",
      "fields[0].description",
    ],
    [
      "one choice",
      { context: "c", fields: [{ ...field, choices: ["a"] }] },
      "choice_count",
      "fields[0].choices",
    ],
    [
      "257 choices",
      {
        context: "c",
        fields: [{ ...field, choices: Array.from({ length: 257 }, (_, i) => `${i}`) }],
      },
      "choice_count",
      "fields[0].choices",
    ],
    [
      "a 257-byte choice",
      { context: "c", fields: [{ ...field, choices: ["a", "b".repeat(257)] }] },
      "choice_too_long",
      "fields[0].choices[1]",
    ],
    [
      "a repeated choice",
      { context: "c", fields: [{ ...field, choices: ["a", "a"] }] },
      "duplicate_choice",
      "fields[0].choices[1]",
    ],
    [
      "[true, false] instead of [false, true]",
      { context: "c", fields: [{ ...field, choices: [true, false] }] },
      "invalid_request",
      "fields[0].choices",
    ],
    [
      "more than 4,096 candidate tokens",
      {
        context: "c",
        fields: Array.from({ length: 20 }, (_, k) => ({
          name: `f${k}`,
          description: "d",
          choices: Array.from({ length: 256 }, (_, i) => `c${i}`),
        })),
      },
      "candidates_overflow",
      "fields",
    ],
    [
      "more than the model's 8,192 tokens",
      { context: "x".repeat(40_000), fields: [field] },
      "context_overflow",
      undefined,
    ],
    ["an unknown key", { context: "c", fields: [field], model: "m" }, "invalid_request", "model"],
  ];
  for (const [name, body, code, where] of cases) {
    await t.step(name, async () => {
      const reply = await postJson(url, body);
      assert.equal(reply.status, 400);
      assert.deepEqual(Object.keys(reply.json), ["error"]);
      assert.equal(reply.json.error.code, code);
      assert.equal(typeof reply.json.error.message, "string");
      assert.equal(reply.json.error.field, where);
    });
  }
});

Deno.test("pcd engine records pcdServer's limit refusals as kind limit and its 429 as retried", async (t) => {
  await t.step("a request over the model's context: limit, one attempt", async () => {
    await using server = await startReferenceServer({ predictor: "uniform" });
    const engine = pcdEngine(server.url);
    const request = engine.build({
      state: "x".repeat(40_000),
      questions,
      model: "m",
      stateEncoding: "json",
    });
    const outcome = await askCase(engine, request, questions, { retries: 2, backoffMs: 1 });
    assert.equal(outcome.error?.kind, "limit");
    assert.equal(outcome.attempts, 1);
    assert.match(
      outcome.error?.message ?? "",
      /HTTP 400 .*: the request needs about \d+ tokens; the model's context is 8192 \[context_overflow\]/,
    );
  });
  await t.step("429 busy with Retry-After: rate_limited after every retry", async () => {
    await using server = await startReferenceServer({ faults: "http429=1:0" });
    const reply = await postJson(`${server.url}/v1/pcd/decode`, {
      context: "c",
      fields: fields(1),
    });
    assert.equal(reply.status, 429);
    assert.equal(reply.headers.get("retry-after"), "0");
    assert.equal(reply.json.error.code, "busy");
    const outcome = await ask(pcdEngine(server.url));
    assert.equal(outcome.error?.kind, "rate_limited");
    assert.equal(outcome.attempts, 3);
  });
  await t.step("a server without the decode route: the run stops, naming pcdServer", async () => {
    await using server = await startReferenceServer();
    const outcome = await ask(pcdEngine(`${server.url}/elsewhere`));
    assert.equal(outcome.fatal, true);
    assert.equal(outcome.error?.kind, "unsupported_endpoint");
    assert.match(outcome.error?.message ?? "", /does not serve pcdServer's POST \/v1\/pcd\/decode/);
  });
});

Deno.test("clef route wraps answers in Cloudflare's envelope, rounded to 4 decimals", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const engine = clefEngine(`${server.url}/client/v4/accounts/acc`);
  const request = engine.build({ state: { a: 1 }, questions, model: "m", stateEncoding: "json" });
  const raw = await postJson(request.url, JSON.parse(request.body));
  assert.equal(raw.status, 200);
  assert.deepEqual(Object.keys(raw.json), ["result", "success", "errors", "messages"]);
  assert.equal(raw.json.success, true);
  assert.equal(raw.json.result.model, "@cf/cloudflare/clef");
  assert.deepEqual(raw.json.result.answers.pick.probabilities, { a: 0.3333, b: 0.3333, c: 0.3333 });
  // 0.9999 is outside 1 ± 1e-3 only by rounding; the clef engine allows for it.
  const outcome = await ask(engine);
  assert.equal(outcome.error, null);
  assert.equal(outcome.reply?.answers.pick?.probability, 0.3333);
  assert.equal(outcome.reply?.answers.pick?.calibrated, true);
});

Deno.test("clef errors: codes decide retryable, final and fatal", async (t) => {
  await t.step("out of capacity (3040, 429): retried", async () => {
    await using server = await startReferenceServer({ faults: "http429=1:0" });
    const raw = await postJson(`${server.url}/ai/run/@cf/cloudflare/clef`, {
      state: "s",
      questions,
    });
    assert.equal(raw.status, 429);
    assert.deepEqual(raw.json.errors.map((e: { code: number }) => e.code), [3040]);
    assert.equal(raw.json.success, false);
    assert.equal(raw.json.result, null);
    const outcome = await ask(clefEngine(server.url));
    assert.equal(outcome.error?.kind, "overloaded");
    assert.equal(outcome.attempts, 3);
    assert.equal(outcome.fatal, false);
  });
  await t.step("no such model (5007): the run stops", async () => {
    await using server = await startReferenceServer();
    const outcome = await ask(clefEngine(server.url, { model: "@cf/meta/not-clef" }));
    assert.equal(outcome.fatal, true);
    assert.equal(outcome.attempts, 1);
    assert.equal(outcome.error?.kind, "unsupported_endpoint");
    assert.match(
      outcome.error?.message ?? "",
      /No such model @cf\/meta\/not-clef or task \(Cloudflare code 5007\)/,
    );
  });
  await t.step("invalid input (5006): final for the case", async () => {
    await using server = await startReferenceServer();
    const raw = await postJson(`${server.url}/ai/run/@cf/cloudflare/clef`, {
      state: "s",
      questions: {},
    });
    assert.equal(raw.status, 400);
    assert.deepEqual(raw.json.errors[0].code, 5006);
    const many: Record<string, Question> = {};
    for (let i = 0; i < 65; i++) many[`q${i}`] = noul;
    const over = await postJson(`${server.url}/ai/run/@cf/cloudflare/clef`, {
      state: "s",
      questions: many,
    });
    assert.match(over.json.errors[0].message, /at most 64/);
    const engine = clefEngine(server.url);
    const request = {
      ...engine.build({ state: "s", questions: { ok: noul }, model: "m", stateEncoding: "json" }),
    };
    request.body = JSON.stringify({ state: "s", questions: many });
    const outcome = await askCase(engine, request, many, { retries: 2, backoffMs: 1 });
    assert.equal(outcome.error?.kind, "invalid_request");
    assert.equal(outcome.attempts, 1);
  });
  await t.step(
    "daily allocation used up (3036, also 429): not retried, the run stops",
    async () => {
      await using server = stub(429, {
        result: null,
        success: false,
        errors: [{
          code: 3036,
          message: "You have used up your daily free allocation of 10,000 neurons.",
        }],
        messages: [],
      });
      const outcome = await ask(clefEngine(server.url));
      assert.equal(outcome.attempts, 1);
      assert.equal(outcome.fatal, true);
      assert.equal(outcome.error?.kind, "rate_limited");
      assert.match(
        outcome.error?.message ?? "",
        /daily free allocation .*\(Cloudflare code 3036\)/,
      );
    },
  );
  await t.step("a 200 with success: false is not an answer", async () => {
    await using server = stub(200, {
      result: null,
      success: false,
      errors: [{ code: 5006, message: "Error: required properties at '/' are 'questions'" }],
      messages: [],
    });
    const outcome = await ask(clefEngine(server.url));
    assert.equal(outcome.error?.kind, "invalid_request");
    assert.equal(outcome.attempts, 1);
  });
  await t.step("a refused token (401, 10000): authentication, the run stops", async () => {
    await using server = await startReferenceServer({ apiKey: "right-key" });
    const engine = clefEngine(server.url);
    const request = engine.build({
      state: "s",
      questions: { ok: noul },
      model: "m",
      stateEncoding: "json",
    });
    const raw = await fetch(request.url, { method: "POST", body: request.body });
    assert.deepEqual((await raw.json()).errors[0].code, 10000);
    const outcome = await askCase(engine, request, { ok: noul }, {
      apiKey: "wrong-key",
      backoffMs: 1,
    });
    assert.equal(outcome.error?.kind, "authentication");
    assert.equal(outcome.fatal, true);
    assert.doesNotMatch(outcome.error?.message ?? "", /wrong-key/);
  });
});

Deno.test("OpenRouter relay route adds id, provider and usage.cost, and errors in OpenRouter's shape", async (t) => {
  await t.step("the extra reply fields reach the engine reply", async () => {
    await using server = await startReferenceServer({ predictor: "uniform" });
    const engine = systemOneEngine(`${server.url}/api/v1`);
    const request = engine.build({
      state: "s",
      questions,
      model: "typesafe/jev-1.13",
      stateEncoding: "json",
    });
    assert.equal(request.url, `${server.url}/api/v1/systemone`);
    const raw = await postJson(request.url, JSON.parse(request.body));
    assert.deepEqual(Object.keys(raw.json), ["id", "provider", "model", "answers", "usage"]);
    assert.equal(raw.json.model, "typesafe/jev-1.13");
    const outcome = await ask(engine);
    assert.match(outcome.reply?.responseId ?? "", /^gen-/);
    assert.equal(outcome.reply?.provider, "decibench-reference");
    assert.ok((outcome.reply?.cost ?? 0) > 0);
  });
  await t.step("an upstream 500 names the provider and is retried", async () => {
    await using server = await startReferenceServer({ faults: "http500=1" });
    const raw = await postJson(`${server.url}/api/v1/systemone`, { state: "s", questions });
    assert.deepEqual(raw.json, {
      error: {
        code: 500,
        message: "Injected fault: internal server error",
        metadata: { provider_name: "decibench-reference" },
      },
    });
    const outcome = await ask(systemOneEngine(`${server.url}/api/v1`));
    assert.equal(outcome.error?.kind, "unavailable");
    assert.equal(outcome.attempts, 3);
  });
  await t.step("a bad request is final, quoting OpenRouter's message", async () => {
    await using server = await startReferenceServer();
    const engine = systemOneEngine(`${server.url}/api/v1`);
    const request = engine.build({ state: "s", questions, model: "m", stateEncoding: "json" });
    const outcome = await askCase(
      engine,
      { ...request, body: '{"state":"s","questions":{}}' },
      questions,
      {
        backoffMs: 1,
      },
    );
    assert.equal(outcome.error?.kind, "invalid_request");
    assert.equal(outcome.attempts, 1);
    assert.match(
      outcome.error?.message ?? "",
      /HTTP 400 .*questions: expected at least one question/,
    );
  });
  await t.step("402 (no credit left): not retried, the run stops", async () => {
    await using server = stub(402, { error: { code: 402, message: "Insufficient credits" } });
    const outcome = await ask(systemOneEngine(`${server.url}/api/v1`));
    assert.equal(outcome.attempts, 1);
    assert.equal(outcome.fatal, true);
    assert.match(
      outcome.error?.message ?? "",
      /HTTP 402\): Insufficient credits; the account has no credit left/,
    );
  });
});

Deno.test("`send()` keeps the status's kind when an engine does not recognise the body", async () => {
  await using server = stub(503, { unexpected: true });
  const engine = clefEngine(server.url);
  const request = engine.build({
    state: "s",
    questions: { ok: noul },
    model: "m",
    stateEncoding: "json",
  });
  await assert.rejects(
    send(request, { classifyError: engine.classifyError!.bind(engine) }),
    (error: unknown) =>
      error instanceof EndpointError && error.kind === "unavailable" && error.transient,
  );
});
