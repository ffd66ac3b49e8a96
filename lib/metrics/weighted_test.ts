import assert from "node:assert/strict";
import { covers, METRIC_REGISTRY, type MetricInput, type SampleMetric } from "./registry.ts";
import { seededRandom } from "./rng.ts";
import { type BootstrapInput, bootstrapIntervals } from "./bootstrap.ts";

/** A mixed table: three types, tied and distinct confidences, a few errors. */
function table(): MetricInput[] {
  const random = seededRandom(11);
  const out: MetricInput[] = [];
  for (let i = 0; i < 120; i++) {
    const type = ["noul", "choice", "score"][i % 3] as string;
    const answered = i % 17 !== 5;
    // a coarse grid makes ties common; every 4th decision gets a distinct value
    const p = i % 4 === 0 ? 0.5 + random() / 2 : 0.5 + Math.floor(random() * 5) / 10;
    const correct = answered && random() < p;
    const predicted = type === "noul"
      ? { true: p, false: 1 - p }
      : { "0": p, "1": (1 - p) / 2, "2": (1 - p) / 2 };
    out.push({
      case: `c${Math.floor(i / 5)}`,
      workflow: `w${i % 2}`,
      question: `q${i % 5}`,
      type,
      correct,
      confidence: answered ? p : null,
      kl: answered ? 0.1 : null,
      brier: answered ? 0.1 : null,
      predicted: answered ? predicted : null,
      gold: type === "noul" ? (random() < p ? "true" : "false") : correct ? "0" : "1",
      gold_probabilities: type === "noul" ? { true: 1, false: 0 } : { "0": 1, "1": 0, "2": 0 },
      error: answered ? null : { kind: "timeout" },
    });
  }
  return out;
}

const weightedMetrics = METRIC_REGISTRY.filter((m): m is SampleMetric =>
  m.kind === "sample" && m.prepare !== undefined
);

Deno.test("every weighted sample metric equals `compute` on the weighted multiset", async (t) => {
  assert.ok(weightedMetrics.length >= 9);
  const decisions = table();
  const random = seededRandom(5);
  for (const metric of weightedMetrics) {
    await t.step(metric.name, () => {
      const covered = decisions.filter((d) => covers(metric, d));
      const weighted = metric.prepare!(covered);
      // One weight array refilled in place between calls, as the bootstrap does.
      const weights = new Float64Array(covered.length);
      for (let round = 0; round < 6; round++) {
        for (let i = 0; i < weights.length; i++) {
          weights[i] = round === 0 ? 1 : Math.floor(random() * 4);
        }
        const expanded = covered.flatMap((d, i) => Array(weights[i]).fill(d) as MetricInput[]);
        const expected = metric.compute(expanded);
        const actual = weighted(weights);
        if (expected === null) assert.equal(actual, null, `${metric.name} round ${round}`);
        else {
          assert.ok(
            actual !== null && Math.abs(actual - expected) <= 1e-12,
            `${metric.name} round ${round}: ${actual} vs ${expected}`,
          );
        }
        // asking again with the same weights gives the same value
        assert.equal(weighted(weights), actual);
        // With the caller's stamp (the bootstrap's resample index), refilled in place too.
        const stamped = metric.prepare!(covered);
        assert.equal(stamped(weights, round), actual, `${metric.name} round ${round}, stamped`);
        assert.equal(stamped(weights, round), actual);
        assert.equal(weighted(weights), actual, "unstamped after stamped");
      }
    });
  }
});

Deno.test("`bootstrapIntervals()` gives the same intervals through the weighted form", () => {
  const decisions = table().map((d) => ({ ...d, case: d.case as string })) as BootstrapInput[];
  const slow = weightedMetrics.map((m) => ({ ...m, name: `${m.name}_slow`, prepare: undefined }));
  const iv = bootstrapIntervals(decisions, {
    resamples: 200,
    seed: 3,
    metrics: [...weightedMetrics, ...slow],
  });
  for (const m of weightedMetrics) {
    const fast = iv[m.name];
    const reference = iv[`${m.name}_slow`];
    assert.ok(fast && reference, m.name);
    assert.ok(Math.abs(fast[0] - reference[0]) <= 1e-12, `${m.name} lower`);
    assert.ok(Math.abs(fast[1] - reference[1]) <= 1e-12, `${m.name} upper`);
  }
});
