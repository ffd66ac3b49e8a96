import assert from "node:assert/strict";
import { emptyStats, prometheusText, snapshotStats } from "./stats.ts";

Deno.test("`prometheusText()` writes llama.cpp's metric names with HELP and TYPE lines", () => {
  const stats = {
    ...emptyStats(),
    promptTokens: 120,
    decodes: 4,
    busySlotsTotal: 6,
    processing: 2,
    refused: 3,
  };
  const text = prometheusText(stats);
  const expected: [string, "counter" | "gauge", number][] = [
    ["llamacpp:prompt_tokens_total", "counter", 120],
    ["llamacpp:tokens_predicted_total", "counter", 0],
    ["llamacpp:n_decode_total", "counter", 4],
    ["llamacpp:n_busy_slots_per_decode", "gauge", 1.5],
    ["llamacpp:requests_processing", "gauge", 2],
    ["llamacpp:requests_deferred", "gauge", 0],
    ["llamacpp:decision_requests_refused_total", "counter", 3],
  ];
  for (const [name, type, value] of expected) {
    assert.match(text, new RegExp(`^# HELP ${name} \\S.*$`, "m"));
    assert.match(text, new RegExp(`^# TYPE ${name} ${type}$`, "m"));
    assert.match(text, new RegExp(`^${name} ${value}$`, "m"));
  }
  assert.ok(text.endsWith("\n"));
});

Deno.test("`prometheusText()` reports 0 busy slots per decode before any decode", () => {
  assert.match(prometheusText(emptyStats()), /^llamacpp:n_busy_slots_per_decode 0$/m);
});

Deno.test("`snapshotStats()` does not change when the live stats do", () => {
  const live = emptyStats();
  const snapshot = snapshotStats(live);
  live.requests++;
  live.faults.reset = 1;
  assert.equal(snapshot.requests, 0);
  assert.deepEqual(snapshot.faults, {});
});
