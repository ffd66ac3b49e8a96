/**
 * Every fault the reference server injects, observed from a fetch() client on loopback, and the
 * reproducibility of the seeded draws.
 */
import assert from "node:assert/strict";
import {
  drawFault,
  parseFaults,
  type ReferenceServer,
  startReferenceServer,
} from "../lib/server/mod.ts";

const body = JSON.stringify({
  model: "m",
  state: { ticket: 1 },
  questions: {
    pick: { type: "choice", instructions: "Which?", criteria: ["a", "b", "c"] },
    urgency: { type: "score", instructions: "How urgent?", criteria: ["low", "high"] },
    ok: { type: "noul", instructions: "Fine?" },
  },
});

function ask(
  server: ReferenceServer,
  init: RequestInit & { client?: Deno.HttpClient } = {},
): Promise<Response> {
  return fetch(`${server.url}/v1/systemone`, { method: "POST", body, ...init });
}

/** Waits (by polling the server's own counters, not the clock) until `ready` holds. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 5));
}

Deno.test("fault http500 answers 500 server_error", async () => {
  await using server = await startReferenceServer({ faults: "http500=1" });
  const response = await ask(server);
  assert.equal(response.status, 500);
  const json = await response.json();
  assert.equal(json.error.type, "server_error");
  assert.equal(json.error.code, 500);
  assert.equal(server.stats().faults.http500, 1);
});

Deno.test("fault http503 answers 503 unavailable_error", async () => {
  await using server = await startReferenceServer({ faults: "http503=1" });
  const response = await ask(server);
  assert.equal(response.status, 503);
  assert.equal((await response.json()).error.type, "unavailable_error");
});

Deno.test("fault http429 answers 429 rate_limit_error with Retry-After", async (t) => {
  await t.step("default Retry-After is 1 s", async () => {
    await using server = await startReferenceServer({ faults: "http429=1" });
    const response = await ask(server);
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.equal((await response.json()).error.type, "rate_limit_error");
  });
  await t.step("http429=rate:0 sends Retry-After: 0", async () => {
    await using server = await startReferenceServer({ faults: "http429=1:0" });
    const response = await ask(server);
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "0");
    await response.body?.cancel();
  });
});

Deno.test("fault http404 answers 404 like a server without /v1/systemone", async () => {
  await using server = await startReferenceServer({ faults: "http404=1" });
  const response = await ask(server);
  assert.equal(response.status, 404);
  assert.deepEqual(await response.json(), {
    error: { code: 404, message: "File Not Found", type: "not_found_error" },
  });
});

Deno.test("fault malformed answers 200 with a body that is not JSON", async () => {
  await using server = await startReferenceServer({ faults: "malformed=1" });
  const response = await ask(server);
  assert.equal(response.status, 200);
  const text = await response.text();
  assert.ok(text.startsWith('{"model":"m"'));
  assert.throws(() => JSON.parse(text), SyntaxError);
});

Deno.test("fault truncated answers 200 with JSON cut short", async () => {
  await using server = await startReferenceServer({ faults: "truncated=1" });
  const full = await (await fetch(`${server.url}/v1/systemone`, { method: "POST", body })).text();
  // The first request was truncated too; compare lengths against an honest server's answer.
  await using honest = await startReferenceServer();
  const whole = await (await ask(honest)).text();
  assert.ok(full.length > 0 && full.length < whole.length);
  assert.ok(whole.startsWith(full));
  assert.throws(() => JSON.parse(full), SyntaxError);
});

Deno.test("fault out_of_range puts one probability outside [0,1]", async () => {
  await using server = await startReferenceServer({ faults: "out_of_range=1" });
  const response = await ask(server);
  assert.equal(response.status, 200);
  const json = await response.json();
  const values = Object.values(json.answers.pick.probabilities) as number[];
  assert.equal(values.filter((p) => p < 0 || p > 1).length, 1);
  assert.deepEqual(json.answers.ok, { type: "noul", noul: 0.5 });
});

Deno.test("fault missing_option drops one option's probability", async () => {
  await using server = await startReferenceServer({ faults: "missing_option=1" });
  const json = await (await ask(server)).json();
  assert.deepEqual(Object.keys(json.answers.pick.probabilities), ["a", "b"]);
  assert.deepEqual(Object.keys(json.answers.urgency.probabilities), ["0", "1"]);
});

Deno.test("fault out_of_range and missing_option break a lone noul answer too", async () => {
  const noulOnly = JSON.stringify({
    state: 1,
    questions: { ok: { type: "noul", instructions: "?" } },
  });
  await using outOfRange = await startReferenceServer({ faults: "out_of_range=1" });
  const a =
    await (await fetch(`${outOfRange.url}/v1/systemone`, { method: "POST", body: noulOnly }))
      .json();
  assert.ok(a.answers.ok.noul > 1);
  await using missing = await startReferenceServer({ faults: "missing_option=1" });
  const b = await (await fetch(`${missing.url}/v1/systemone`, { method: "POST", body: noulOnly }))
    .json();
  assert.deepEqual(b.answers.ok, { type: "noul" });
});

Deno.test("fault reset closes the connection: the client sees a network error", async () => {
  await using server = await startReferenceServer({ faults: "reset=1" });
  await assert.rejects(async () => {
    const response = await ask(server);
    await response.text();
  }, TypeError);
  assert.equal(server.stats().refused, 1);
  assert.equal(server.stats().answered, 0);
});

Deno.test("fault timeout never answers until the client gives up", async () => {
  await using server = await startReferenceServer({ faults: "timeout=1" });
  const controller = new AbortController();
  const pending = ask(server, { signal: controller.signal });
  await until(() => server.stats().processing === 1);
  controller.abort();
  await assert.rejects(pending, (error: unknown) => {
    assert.equal((error as Error).name, "AbortError");
    return true;
  });
  await until(() => server.stats().processing === 0);
  assert.equal(server.stats().refused, 1);
});

Deno.test("fault timeout holds only the drawn request: the others on the same kept-alive connections are answered", async () => {
  const warm = 8;
  const parallel = 48;
  const faults = parseFaults("timeout=0.02");
  // A seed whose draws leave the warm-up alone and time out exactly one of the parallel requests.
  let seed = 0;
  const kinds = (s: number) =>
    Array.from({ length: warm + parallel }, (_, i) => drawFault(faults, s, i)?.kind);
  while (
    kinds(seed).slice(0, warm).some(Boolean) ||
    kinds(seed).filter((kind) => kind === "timeout").length !== 1
  ) seed++;
  await using server = await startReferenceServer({ faults, seed });
  using client = Deno.createHttpClient({ poolMaxIdlePerHost: warm });
  // Eight connections opened and kept alive, then reused by the parallel requests.
  await Promise.all(
    Array.from({ length: warm }, () => ask(server, { client }).then((r) => r.text())),
  );
  const controller = new AbortController();
  let answered = 0;
  const outcomes = Array.from(
    { length: parallel },
    () =>
      ask(server, { client, signal: controller.signal }).then(async (r) => {
        await r.text();
        answered++;
        return r.status;
      }, (error: Error) => error.name),
  );
  // Counted, not timed: every request has arrived, and all but the drawn one are answered.
  await until(() => server.stats().decisionRequests === warm + parallel);
  await until(() => answered === parallel - 1 || server.stats().processing > 1);
  assert.equal(server.stats().processing, 1, "only the drawn request is held");
  controller.abort();
  const settled = await Promise.all(outcomes);
  assert.equal(settled.filter((o) => o === 200).length, parallel - 1);
  assert.deepEqual(settled.filter((o) => o !== 200), ["AbortError"]);
});

Deno.test("fault timeout requests are released when the server closes", async () => {
  const server = await startReferenceServer({ faults: "timeout=1" });
  const pending = ask(server).then((response) => response.status, () => "network error");
  await until(() => server.stats().processing === 1);
  await server.close();
  const outcome = await pending;
  assert.ok(outcome === 503 || outcome === "network error", String(outcome));
});

Deno.test("a valid request with a transport fault still gets the fault, an invalid one with an answer fault gets 400", async () => {
  await using transport = await startReferenceServer({ faults: "http500=1" });
  const a = await fetch(`${transport.url}/v1/systemone`, { method: "POST", body: "{}" });
  assert.equal(a.status, 500);
  await a.body?.cancel();
  await using answer = await startReferenceServer({ faults: "malformed=1" });
  const b = await fetch(`${answer.url}/v1/systemone`, { method: "POST", body: "{}" });
  assert.equal(b.status, 400);
  assert.equal((await b.json()).error.type, "invalid_request_error");
});

Deno.test("fault draws are reproducible with a seed and follow drawFault()", async () => {
  const spec = "http500=0.2,http429=0.2:0,malformed=0.2";
  const statuses = async (seed: number): Promise<string[]> => {
    await using server = await startReferenceServer({ faults: spec, seed });
    const seen: string[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await ask(server);
      const text = await response.text();
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      seen.push(`${response.status}${valid ? "" : " malformed"}`);
    }
    return seen;
  };
  const first = await statuses(11);
  assert.deepEqual(await statuses(11), first);
  assert.notDeepEqual(await statuses(12), first);
  const faults = parseFaults(spec);
  const expected = first.map((_, i) => {
    const kind = drawFault(faults, 11, i)?.kind;
    return kind === "http500"
      ? "500"
      : kind === "http429"
      ? "429"
      : kind === "malformed"
      ? "200 malformed"
      : "200";
  });
  assert.deepEqual(first, expected);
  assert.ok(new Set(first).size === 4, `all four outcomes should appear: ${first.join(", ")}`);
});

Deno.test("unauthorised requests draw no fault", async () => {
  await using server = await startReferenceServer({ faults: "http500=1", apiKey: "k" });
  const response = await ask(server);
  assert.equal(response.status, 401);
  await response.body?.cancel();
  assert.deepEqual(server.stats().faults, {});
});

Deno.test("faults count in /metrics as refused decision requests", async () => {
  await using server = await startReferenceServer({ faults: "http503=1" });
  for (let i = 0; i < 3; i++) await (await ask(server)).body?.cancel();
  const text = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(text, /^llamacpp:decision_requests_refused_total 3$/m);
  assert.match(text, /^llamacpp:n_decode_total 0$/m);
});
