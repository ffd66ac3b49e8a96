/**
 * The reference server over real HTTP on loopback: routes, validation errors, answers, auth and
 * metrics, seen from a fetch() client.
 */
import assert from "node:assert/strict";
import { optionsOf } from "../lib/dataset/questions.ts";
import type { Case } from "../lib/dataset/schemas.ts";
import { loadDataset } from "../lib/dataset/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";

const noul = { type: "noul", instructions: "Is it fine?" };
const questions = {
  pick: { type: "choice", instructions: "Which?", criteria: { b: "the b", a: null, c: "the c" } },
  urgency: { type: "score", instructions: "How urgent?", criteria: ["low", "mid", "high", "now"] },
  ok: { type: "bool", instructions: "Is it fine?" },
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/v1/systemone`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

Deno.test("reference server answers /health and 404s unknown routes with a llama-style body", async () => {
  await using server = await startReferenceServer();
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const health = await fetch(`${server.url}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: "ok" });
  for (const path of ["/", "/systemone", "/v1/chat/completions", "/v1/systemone/"]) {
    const response = await fetch(`${server.url}${path}`, { method: "POST", body: "{}" });
    assert.equal(response.status, 404, path);
    assert.deepEqual(await response.json(), {
      error: { code: 404, message: "File Not Found", type: "not_found_error" },
    });
  }
  const get = await fetch(`${server.url}/v1/systemone`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
  assert.equal((await get.json()).error.type, "invalid_request_error");
});

Deno.test("reference server answers a uniform System One request in llama-server's envelope", async () => {
  await using server = await startReferenceServer({ predictor: "uniform" });
  const state = { ticket: "refund", amount: 12 };
  const reply = await post(server.url, { model: "tiny", state, questions });
  assert.equal(reply.status, 200);
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
  assert.deepEqual(Object.keys(reply.json), ["model", "answers", "usage"]);
  assert.equal(reply.json.model, "tiny");
  assert.deepEqual(Object.keys(reply.json.answers), ["pick", "urgency", "ok"]);
  assert.deepEqual(reply.json.answers.pick, {
    type: "choice",
    choice: "b",
    probabilities: { b: 1 / 3, a: 1 / 3, c: 1 / 3 },
    confidence: 0,
  });
  assert.deepEqual(Object.keys(reply.json.answers.pick.probabilities), ["b", "a", "c"]);
  assert.deepEqual(reply.json.answers.urgency, {
    type: "score",
    score: 1.5,
    probabilities: { "0": 0.25, "1": 0.25, "2": 0.25, "3": 0.25 },
    confidence: 0,
    legend: { "0": "low", "1": "mid", "2": "high", "3": "now" },
  });
  assert.deepEqual(reply.json.answers.ok, { type: "noul", noul: 0.5 });
  const expectedTokens = Math.ceil(
    (JSON.stringify(state).length + JSON.stringify(questions).length) / 4,
  );
  assert.deepEqual(reply.json.usage, { input_tokens: expectedTokens, output_tokens: 0 });
});

Deno.test("reference server names the predictor as the model when none is asked for", async () => {
  await using server = await startReferenceServer();
  const reply = await post(server.url, { state: "text", questions: { ok: noul } });
  assert.equal(reply.status, 200);
  assert.equal(reply.json.model, "decibench-reference-uniform");
  assert.equal(server.predictor, "uniform");
});

Deno.test("reference server refuses invalid requests with 400 invalid_request_error naming the field", async (t) => {
  await using server = await startReferenceServer();
  const cases: [string, unknown, RegExp][] = [
    ["an empty body", "", /Request body is empty/],
    ["invalid JSON", "{state:", /Request body is not valid JSON/],
    ["a JSON list", "[]", /expected a JSON object/],
    ["a missing state", { questions: { ok: noul } }, /^state: required/],
    [
      "a non-string model",
      { model: 1, state: 1, questions: { ok: noul } },
      /^model: expected a string/,
    ],
    ["an unknown field", { state: 1, questions: { ok: noul }, seed: 3 }, /^seed: unknown field/],
    ["no questions", { state: 1, questions: {} }, /^questions: expected at least one question/],
    [
      "a bad type",
      { state: 1, questions: { ok: { ...noul, type: "yesno" } } },
      /^questions\.ok\.type: expected "choice"/,
    ],
    [
      "missing instructions",
      { state: 1, questions: { ok: { type: "noul" } } },
      /^questions\.ok\.instructions: required/,
    ],
    ["a one-option choice", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: ["a"] } },
    }, /^questions\.pick\.criteria: expected 2-255 options/],
    ["duplicate options", {
      state: 1,
      questions: { pick: { type: "choice", instructions: "i", criteria: ["a", "a"] } },
    }, /duplicate option "a"/],
    ["eleven levels", {
      state: 1,
      questions: { urgency: { type: "score", instructions: "i", criteria: Array(11).fill("x") } },
    }, /^questions\.urgency\.criteria: expected 2-10 levels, got 11/],
    [
      "a non-data image",
      { state: 1, questions: { ok: noul }, images: ["http://x/a.png"] },
      /^images\[0\]: expected a data: URL/,
    ],
    [
      "nine files",
      { state: 1, questions: { ok: noul }, files: Array(9).fill("data:,") },
      /^files: expected at most 8/,
    ],
  ];
  for (const [name, body, message] of cases) {
    await t.step(name, async () => {
      const reply = await post(server.url, body);
      assert.equal(reply.status, 400);
      assert.deepEqual(Object.keys(reply.json.error).sort(), ["code", "message", "type"]);
      assert.equal(reply.json.error.type, "invalid_request_error");
      assert.equal(reply.json.error.code, 400);
      assert.match(reply.json.error.message, message);
    });
  }
});

Deno.test("reference server accepts images, files and bool questions", async () => {
  await using server = await startReferenceServer();
  const reply = await post(server.url, {
    state: 1,
    questions: { ok: { type: "bool", instructions: "Fine?", criteria: { true: "y", false: "n" } } },
    images: Array(8).fill("data:image/png;base64,AAAA"),
  });
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json.answers.ok, { type: "noul", noul: 0.5 });
});

Deno.test("reference server refuses a body over its limit with 413 request_too_large_error", async (t) => {
  await using server = await startReferenceServer({ maxBodyBytes: 1000 });
  const big = { state: "x".repeat(2000), questions: { ok: noul } };
  await t.step("with a Content-Length", async () => {
    const reply = await post(server.url, big);
    assert.equal(reply.status, 413);
    assert.equal(reply.json.error.type, "request_too_large_error");
    assert.match(reply.json.error.message, /larger than the server's limit of 1000 bytes/);
  });
  await t.step("streamed without a Content-Length", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const response = await fetch(`${server.url}/v1/systemone`, {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      }),
    });
    assert.equal(response.status, 413);
    assert.equal((await response.json()).error.type, "request_too_large_error");
  });
  await t.step("a small streamed body is read whole", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ state: "é", questions: { ok: noul } }));
    const response = await fetch(`${server.url}/v1/systemone`, {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.slice(0, 5));
          controller.enqueue(bytes.slice(5));
          controller.close();
        },
      }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).answers.ok, { type: "noul", noul: 0.5 });
  });
  await t.step("a body just under the limit passes", async () => {
    const reply = await post(server.url, { state: "x".repeat(900), questions: { ok: noul } });
    assert.equal(reply.status, 200);
  });
});

Deno.test("reference server's default body limit is 1 MiB", async () => {
  await using server = await startReferenceServer();
  const reply = await post(server.url, { state: "x".repeat(1024 * 1024), questions: { ok: noul } });
  assert.equal(reply.status, 413);
  assert.equal(reply.json.error.type, "request_too_large_error");
});

Deno.test("reference server with an API key answers 401 without it and 200 with it", async (t) => {
  const key = "sk-test-secret-123";
  await using server = await startReferenceServer({ apiKey: key });
  const body = { state: 1, questions: { ok: noul } };
  for (
    const [name, headers] of [
      ["no header", {}],
      ["a wrong key", { authorization: "Bearer sk-wrong" }],
      ["the key without Bearer", { authorization: key }],
    ] as [string, Record<string, string>][]
  ) {
    await t.step(name, async () => {
      const reply = await post(server.url, body, headers);
      assert.equal(reply.status, 401);
      assert.deepEqual(reply.json, {
        error: { code: 401, message: "Invalid API Key", type: "authentication_error" },
      });
      assert.ok(!JSON.stringify(reply.json).includes(key));
    });
  }
  await t.step("the right key", async () => {
    const reply = await post(server.url, body, { authorization: `Bearer ${key}` });
    assert.equal(reply.status, 200);
    assert.ok(!JSON.stringify(reply.json).includes(key));
  });
  await t.step("/metrics needs the key, /health does not", async () => {
    const metrics = await fetch(`${server.url}/metrics`);
    assert.equal(metrics.status, 401);
    await metrics.body?.cancel();
    const keyed = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(keyed.status, 200);
    assert.ok(!(await keyed.text()).includes(key));
    const health = await fetch(`${server.url}/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  });
});

Deno.test("reference server's /metrics counters grow with the requests it answers", async () => {
  await using server = await startReferenceServer();
  const scrape = async () => {
    const response = await fetch(`${server.url}/metrics`);
    assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const value = (name: string) => {
      const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
      assert.ok(match, `${name} missing`);
      return Number(match[1]);
    };
    return {
      text,
      prompt: value("llamacpp:prompt_tokens_total"),
      decode: value("llamacpp:n_decode_total"),
      refused: value("llamacpp:decision_requests_refused_total"),
      processing: value("llamacpp:requests_processing"),
    };
  };
  const before = await scrape();
  assert.equal(before.decode, 0);
  assert.match(before.text, /^# TYPE llamacpp:prompt_tokens_total counter$/m);
  assert.match(before.text, /^# TYPE llamacpp:requests_processing gauge$/m);
  assert.match(before.text, /^# TYPE llamacpp:requests_deferred gauge$/m);
  assert.match(before.text, /^# TYPE llamacpp:n_busy_slots_per_decode gauge$/m);
  assert.match(before.text, /^# TYPE llamacpp:tokens_predicted_total counter$/m);
  assert.match(before.text, /^# HELP llamacpp:decision_requests_refused_total /m);
  const ok = await post(server.url, { state: "abc", questions: { ok: noul } });
  await post(server.url, { state: "abc", questions: { ok: noul } });
  await post(server.url, { state: "abc" });
  const after = await scrape();
  assert.equal(after.decode, 2);
  assert.equal(after.prompt, 2 * ok.json.usage.input_tokens);
  assert.equal(after.refused, 1);
  assert.equal(after.processing, 0);
  const stats = server.stats();
  assert.equal(stats.decisionRequests, 3);
  assert.equal(stats.answered, 2);
  assert.equal(stats.refused, 1);
});

Deno.test("reference server with the oracle reproduces gold for real test cases", async () => {
  const cases: Case[] = (await loadDataset({ split: "test" })).cases;
  await using server = await startReferenceServer({ predictor: "oracle" });
  for (const item of [cases[0]!, cases[150]!, cases[399]!]) {
    const reply = await post(server.url, {
      model: "m",
      state: item.state,
      questions: item.questions,
    });
    assert.equal(reply.status, 200, item.id);
    assert.deepEqual(Object.keys(reply.json.answers), Object.keys(item.questions));
    for (const [name, question] of Object.entries(item.questions)) {
      const gold = item.gold[name]!;
      const answer = reply.json.answers[name];
      if (question.type === "noul") {
        assert.deepEqual(answer, { type: "noul", noul: gold.probabilities["true"] });
        continue;
      }
      assert.deepEqual(
        Object.entries(answer.probabilities),
        optionsOf(question).map((option) => [option, gold.probabilities[option]]),
        `${item.id}/${name}`,
      );
      assert.ok(Math.abs(answer.confidence - gold.confidence) < 1e-5, `${item.id}/${name}`);
      if (question.type === "score") {
        assert.ok(Math.abs(answer.score - gold.score!) < 1e-5, `${item.id}/${name}`);
      }
    }
  }
  const asText = await post(server.url, {
    state: JSON.stringify(cases[7]!.state),
    questions: cases[7]!.questions,
  });
  assert.equal(asText.status, 200);
  const unknown = await post(server.url, {
    state: { not: "a case" },
    questions: cases[0]!.questions,
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.error.type, "invalid_request_error");
  assert.match(unknown.json.error.message, /oracle knows the Typed Decisions test split's states/);
});

Deno.test("reference server delays answers by latencyMs and still answers", async () => {
  await using server = await startReferenceServer({ latencyMs: 20 });
  const reply = await post(server.url, { state: 1, questions: { ok: noul } });
  assert.equal(reply.status, 200);
});

Deno.test("startReferenceServer() refuses bad options with a RangeError", async (t) => {
  const cases: [string, Parameters<typeof startReferenceServer>[0], RegExp][] = [
    ["a negative port", { port: -1 }, /port "-1"/],
    ["a fractional seed", { seed: 1.5 }, /seed "1.5"/],
    ["a negative latency", { latencyMs: -5 }, /latency "-5"/],
    ["an empty key", { apiKey: "" }, /API key is empty/],
    ["a bad fault spec", { faults: "http500=2" }, /Cannot parse fault "http500=2"/],
    ["an unknown predictor", { predictor: "psychic" }, /Cannot create predictor "psychic"/],
  ];
  for (const [name, options, message] of cases) {
    await t.step(name, async () => {
      await assert.rejects(() => startReferenceServer(options), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});

Deno.test("reference server closes when its signal aborts", async () => {
  const controller = new AbortController();
  const server = await startReferenceServer({ signal: controller.signal });
  const health = await fetch(`${server.url}/health`);
  await health.body?.cancel();
  controller.abort();
  await server.close();
  await assert.rejects(() => fetch(`${server.url}/health`), TypeError);
});
