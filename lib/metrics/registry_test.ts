import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { computeMetric, covers, METRIC_NAMES, METRIC_REGISTRY, metricByName } from "./registry.ts";
import { summarize } from "./summary.ts";

Deno.test("`METRIC_REGISTRY` says which direction is better and the range of each metric", () => {
  const expected: Record<string, [boolean, readonly [number, number]]> = {
    accuracy: [true, [0, 1]],
    kl: [false, [0, Infinity]],
    brier: [false, [0, 2]],
    ece: [false, [0, 1]],
    nll: [false, [0, -Math.log(1e-12)]],
  };
  for (const [name, [higher, range]] of Object.entries(expected)) {
    const m = metricByName(name);
    assert.ok(m, name);
    assert.equal(m.higherIsBetter, higher, name);
    assert.deepEqual(m.range, range, name);
  }
  for (const m of METRIC_REGISTRY) {
    assert.match(m.name, /^[a-z0-9_]+$/, "names are SQL columns and threshold keys");
    assert.ok(m.label.length > 0 && m.description.length > 0, m.name);
  }
  assert.equal(new Set(METRIC_NAMES).size, METRIC_NAMES.length, "names are unique");
  assert.equal(metricByName("nope"), undefined);
});

Deno.test("`nll` is the mean −ln p(gold label) over answered decisions, floored at 1e-12", () => {
  const nll = metricByName("nll")!;
  const base = { case: "a", type: "choice", confidence: 0.5, kl: 0, brier: 0, correct: false };
  const decisions = [
    { ...base, predicted: { x: 0.5, y: 0.5 }, gold: "x", error: null },
    { ...base, predicted: { x: 0.25, y: 0.75 }, gold: "x", error: null },
    { ...base, predicted: { x: 0, y: 1 }, gold: "x", error: null },
    { ...base, predicted: null, gold: "x", error: { kind: "timeout" } },
  ];
  // (ln 2 + ln 4 + 27.631…) / 3; the error is left out
  assertClose(
    computeMetric(nll, decisions),
    (Math.log(2) + Math.log(4) - Math.log(1e-12)) / 3,
    1e-12,
  );
  assert.equal(computeMetric(nll, [decisions[3]!]), null, "nothing answered: n/a");
});

Deno.test("`covers()` follows `over` and `types`", () => {
  const accuracy = metricByName("accuracy")!;
  const kl = metricByName("kl")!;
  const failed = { case: "a", type: "noul", error: { kind: "timeout" } };
  assert.equal(covers(accuracy, failed), true, "errors count for accuracy");
  assert.equal(covers(kl, failed), false, "errors are left out of KL");
  assert.equal(
    covers({ ...kl, types: ["score"] }, { case: "a", type: "noul", error: null }),
    false,
  );
});

Deno.test("a summary carries every registered metric with its interval", () => {
  const d = ["a", "b", "c"].map((id, i) => ({
    case: id,
    type: "noul",
    correct: i > 0,
    confidence: 0.8,
    kl: 0.1,
    brier: 0.1,
    predicted: { true: 0.8, false: 0.2 },
    gold: i > 0 ? "true" : "false",
    error: null,
    latency_ms: 1,
    input_tokens: 1,
  }));
  const s = summarize(d, { resamples: 50 });
  assert.deepEqual(Object.keys(s.metrics), [...METRIC_NAMES]);
  assert.deepEqual(Object.keys(s.intervals), [...METRIC_NAMES]);
  assertClose(s.metrics.nll, (2 * -Math.log(0.8) - Math.log(0.2)) / 3, 1e-12);
});
