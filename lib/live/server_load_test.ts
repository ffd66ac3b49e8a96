import assert from "node:assert/strict";
import {
  addSample,
  counterRate,
  emptyLoad,
  failedScrape,
  LLAMACPP_METRICS,
  metricsUrlFor,
  parsePrometheus,
} from "./server_load.ts";

const { decodes, promptTokens } = LLAMACPP_METRICS;

Deno.test("`parsePrometheus()` reads llama.cpp names, skips comments and bad lines, sums labelled series", () => {
  const text = [
    "# HELP llamacpp:n_decode_total Forward passes",
    "# TYPE llamacpp:n_decode_total counter",
    "llamacpp:n_decode_total 42",
    "llamacpp:prompt_tokens_total 1.5e3",
    'llamacpp:requests_processing{slot="0"} 1',
    'llamacpp:requests_processing{slot="1"} 2',
    "llamacpp:requests_deferred NaN",
    "garbage line without value",
    "",
    "llamacpp:n_busy_slots_per_decode 0.75 1700000000000",
  ].join("\n");
  assert.deepEqual(parsePrometheus(text), {
    "llamacpp:n_decode_total": 42,
    "llamacpp:prompt_tokens_total": 1500,
    "llamacpp:requests_processing": 3,
    "llamacpp:n_busy_slots_per_decode": 0.75,
  });
});

Deno.test("`counterRate()` gives the increase per second and clamps a decrease at 0", async (t) => {
  const cases: [string, number | undefined, number | undefined, number, number | null][] = [
    ["increase", 10, 30, 4, 5],
    ["no change", 7, 7, 1, 0],
    ["restart (counter went down)", 5000, 12, 2, 0],
    ["missing before", undefined, 3, 1, null],
    ["missing after", 3, undefined, 1, null],
    ["no time passed", 1, 2, 0, null],
  ];
  for (const [name, before, after, seconds, expected] of cases) {
    await t.step(name, () => assert.equal(counterRate(before, after, seconds), expected));
  }
});

Deno.test("`addSample()` computes rates from successive scrapes", () => {
  const first = addSample(emptyLoad("http://h/metrics"), {
    at: 1000,
    values: { [decodes]: 10, [promptTokens]: 5000 },
  });
  assert.equal(first.status, "ok");
  assert.equal(first.requestsPerSecond, null);
  const second = addSample(first, { at: 3000, values: { [decodes]: 14, [promptTokens]: 7000 } });
  assert.equal(second.requestsPerSecond, 2);
  assert.equal(second.inputTokensPerSecond, 1000);
  assert.equal(second.restarts, 0);
});

Deno.test("`addSample()` clamps rates at 0 after a server restart and counts the restart", () => {
  let load = addSample(emptyLoad("u"), { at: 0, values: { [decodes]: 900, [promptTokens]: 9e5 } });
  load = addSample(load, { at: 1000, values: { [decodes]: 3, [promptTokens]: 2000 } });
  assert.equal(load.requestsPerSecond, 0);
  assert.equal(load.inputTokensPerSecond, 0);
  assert.equal(load.restarts, 1);
  // The next interval measures from the restarted counters again.
  load = addSample(load, { at: 2000, values: { [decodes]: 5, [promptTokens]: 3000 } });
  assert.equal(load.requestsPerSecond, 2);
  assert.equal(load.inputTokensPerSecond, 1000);
  assert.equal(load.restarts, 1);
});

Deno.test("`failedScrape()` drops the rates; the next good scrape measures from the last good one", () => {
  let load = addSample(emptyLoad("u"), { at: 0, values: { [decodes]: 0 } });
  load = failedScrape(load, "HTTP 404");
  assert.equal(load.status, "unavailable");
  assert.equal(load.reason, "HTTP 404");
  assert.equal(load.requestsPerSecond, null);
  load = addSample(load, { at: 4000, values: { [decodes]: 8 } });
  assert.equal(load.status, "ok");
  assert.equal(load.reason, null);
  assert.equal(load.requestsPerSecond, 2);
  assert.equal(load.inputTokensPerSecond, null);
});

Deno.test("`metricsUrlFor()` points at the server root's /metrics", async (t) => {
  const cases: [string, string][] = [
    ["http://127.0.0.1:8080", "http://127.0.0.1:8080/metrics"],
    ["http://127.0.0.1:8080/", "http://127.0.0.1:8080/metrics"],
    ["http://gpu-box:8084/v1", "http://gpu-box:8084/metrics"],
    ["http://gpu-box:8084/v1/systemone", "http://gpu-box:8084/metrics"],
    ["https://proxy.example/llama/v1/", "https://proxy.example/llama/metrics"],
    ["http://h:1/?key=secret#x", "http://h:1/metrics"],
  ];
  for (const [base, expected] of cases) {
    await t.step(base, () => assert.equal(metricsUrlFor(base), expected));
  }
  await t.step("an unparseable base URL is refused with the fix", () => {
    assert.throws(() => metricsUrlFor("not a url"), {
      name: "TypeError",
      message: /Cannot derive the metrics URL: "not a url" is not a URL; pass --metrics-url/,
    });
  });
});
