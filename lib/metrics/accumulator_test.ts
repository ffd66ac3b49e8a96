import assert from "node:assert/strict";
import { MetricsAccumulator } from "./accumulator.ts";
import { bootstrapIntervals } from "./bootstrap.ts";
import { ACCURACY } from "./headline.ts";
import { poissonWeights } from "./_poisson.ts";
import { METRIC_REGISTRY } from "./registry.ts";
import { seededRandom, shuffle } from "./rng.ts";
import { breakdown, type BreakdownInput, summarize, type Summary } from "./summary.ts";

const TYPES = ["choice", "score", "noul"] as const;

/**
 * Synthetic cases like a run's: 10 lanes of 3 questions (one per type), continuous confidences,
 * whole-millisecond latencies, a few errors and unlabelled decisions.
 */
function run(cases: number, seed: number): [string, BreakdownInput[]][] {
  const random = seededRandom(seed);
  const out: [string, BreakdownInput[]][] = [];
  for (let c = 0; c < cases; c++) {
    const id = `case-${seed}-${c}`;
    const workflow = `lane${c % 10}`;
    const failed = random() < 0.03;
    const latency = Math.round(20 + 200 * random());
    const list = TYPES.map((type, q): BreakdownInput => {
      const p = 0.34 + 0.66 * random();
      const right = random() < p;
      const predicted = type === "noul"
        ? { true: p, false: 1 - p }
        : { "0": p, "1": (1 - p) / 2, "2": (1 - p) / 2 };
      const gold = type === "noul" ? (right ? "true" : "false") : right ? "0" : "1";
      return {
        case: id,
        workflow,
        question: `q${q}`,
        type,
        correct: !failed && right,
        confidence: failed ? null : p,
        kl: failed ? null : -Math.log(right ? p : (1 - p) / 2),
        brier: failed ? null : (1 - p) ** 2,
        predicted: failed ? null : predicted,
        gold: c % 97 === 5 && q === 1 ? null : gold,
        gold_probabilities: type === "noul"
          ? { true: gold === "true" ? 1 : 0, false: gold === "true" ? 0 : 1 }
          : { "0": right ? 1 : 0, "1": right ? 0 : 1, "2": 0 },
        error: failed ? { kind: "timeout", message: "Timed out" } : null,
        latency_ms: failed ? null : latency,
        input_tokens: 300,
      };
    });
    out.push([id, list]);
  }
  return out;
}

function feed(
  cases: readonly [string, BreakdownInput[]][],
  options: ConstructorParameters<typeof MetricsAccumulator>[0] = {},
): MetricsAccumulator {
  const acc = new MetricsAccumulator(options);
  for (const [id, list] of cases) acc.addCase(id, list);
  return acc;
}

/** Summaries equal up to the last bits of the point estimates' sums; intervals identical. */
function assertSameSummary(actual: Summary, expected: Summary, what: string): void {
  assert.deepEqual(actual.intervals, expected.intervals, `${what}: intervals`);
  const { metrics: a, meanConfidence: ca, ...restA } = actual;
  const { metrics: b, meanConfidence: cb, ...restB } = expected;
  assert.deepEqual({ ...restA, reliability: null }, { ...restB, reliability: null }, what);
  assert.ok(Math.abs((ca ?? 0) - (cb ?? 0)) <= 1e-12, `${what}: mean confidence`);
  for (const name of Object.keys(b)) {
    const x = a[name];
    const y = b[name];
    assert.ok(
      x === y || (typeof x === "number" && typeof y === "number" && Math.abs(x - y) <= 1e-12),
      `${what}: ${name} ${x} vs ${y}`,
    );
  }
}

Deno.test("`poissonWeights()` depends only on seed, case id and replicate", () => {
  const a = poissonWeights(3, "case-1", new Uint8Array(500));
  assert.deepEqual(poissonWeights(3, "case-1", new Uint8Array(500)), a);
  // The first replicates do not depend on how many there are.
  assert.deepEqual(poissonWeights(3, "case-1", new Uint8Array(100)), a.subarray(0, 100));
  assert.notDeepEqual(poissonWeights(4, "case-1", new Uint8Array(500)), a);
  assert.notDeepEqual(poissonWeights(3, "case-2", new Uint8Array(500)), a);
  assert.notDeepEqual(poissonWeights(3 + 2 ** 32, "case-1", new Uint8Array(500)), a);
});

Deno.test("`poissonWeights()` draws Poisson(1) weights", () => {
  // 20,000 cases × 50 replicates: the frequencies of 0, 1, 2, 3 and the mean and variance.
  const counts = new Float64Array(16);
  const w = new Uint8Array(50);
  let sum = 0;
  let squares = 0;
  for (let c = 0; c < 20_000; c++) {
    for (const k of poissonWeights(7, `c${c}`, w)) {
      counts[k]!++;
      sum += k;
      squares += k * k;
    }
  }
  const n = 1_000_000;
  const pmf = [Math.exp(-1), Math.exp(-1), Math.exp(-1) / 2, Math.exp(-1) / 6];
  pmf.forEach((p, k) => assert.ok(Math.abs(counts[k]! / n - p) < 0.003, `P(${k})`));
  const mean = sum / n;
  assert.ok(Math.abs(mean - 1) < 0.005, `mean ${mean}`);
  assert.ok(Math.abs(squares / n - mean * mean - 1) < 0.01, "variance");
  // Neighbouring replicates and cases are not correlated.
  const x = poissonWeights(7, "a", new Uint8Array(20_000));
  const y = poissonWeights(7, "b", new Uint8Array(20_000));
  let cov = 0;
  let lag = 0;
  for (let r = 0; r < x.length - 1; r++) {
    cov += (x[r]! - 1) * (y[r]! - 1);
    lag += (x[r]! - 1) * (x[r + 1]! - 1);
  }
  assert.ok(Math.abs(cov / x.length) < 0.04 && Math.abs(lag / x.length) < 0.04, "independent");
});

Deno.test("the accumulator gives the same summary and breakdowns whatever the cases' order", () => {
  const cases = run(300, 1);
  const options = { seed: 5, resamples: 200, planned: [] };
  const ordered = feed(cases, options);
  const shuffled = feed(shuffle(cases, 2), options);
  assertSameSummary(shuffled.summary(), ordered.summary(), "shuffled");
  for (const by of ["type", "workflow", "question"] as const) {
    const rows = new Map(ordered.breakdown(by).map((r) => [r.key, r]));
    const other = shuffled.breakdown(by);
    assert.equal(other.length, rows.size);
    for (const row of other) assertSameSummary(row, rows.get(row.key)!, `${by} ${row.key}`);
  }
});

Deno.test("accumulators fed chunks of the cases and merged give the intervals of one fed them all", () => {
  const cases = run(300, 3);
  const options = { seed: 1, resamples: 200 };
  const whole = feed(cases, options);
  const parts = [cases.slice(0, 50), cases.slice(50, 220), cases.slice(220)].map((c) =>
    feed(c, options)
  );
  const merged = parts[2]!;
  merged.merge(parts[0]!);
  merged.merge(parts[1]!);
  assertSameSummary(merged.summary(), whole.summary(), "merged");
  assert.deepEqual(
    merged.breakdown("question").map((r) => [r.key, r.decisions, r.intervals.accuracy]),
    whole.breakdown("question").map((r) => [r.key, r.decisions, r.intervals.accuracy]),
  );
});

Deno.test("past the histograms' cap, shuffled and merged feeds still give identical intervals", () => {
  // 3,000 distinct confidences and forecasts: every histogram is on its dyadic grid.
  const cases = run(1000, 4);
  const options = { seed: 9, resamples: 50, breakdowns: [] };
  const whole = feed(cases, options);
  const a = feed(shuffle(cases, 3).slice(0, 400), options);
  a.merge(feed(shuffle(cases, 3).slice(400), options));
  assertSameSummary(a.summary(), whole.summary(), "merged on the grid");
  assertSameSummary(feed(shuffle(cases, 8), options).summary(), whole.summary(), "shuffled");
});

Deno.test("the functions over plain arrays give what the accumulator gives", () => {
  const cases = run(200, 6);
  const decisions = cases.flatMap(([, list]) => list);
  const acc = feed(cases, { seed: 2, resamples: 100, planned: [] });
  assert.deepEqual(acc.summary(), summarize(decisions, { seed: 2, resamples: 100 }));
  assert.deepEqual(
    bootstrapIntervals(decisions, { seed: 2, resamples: 100 }),
    acc.summary().intervals,
  );
  assert.deepEqual(
    acc.breakdown("workflow"),
    breakdown(decisions, "workflow", {
      seed: 2,
      resamples: 100,
      metrics: METRIC_REGISTRY.filter((m) => m.column),
      intervalMetrics: [ACCURACY],
    }),
  );
});

Deno.test("the accumulator's intervals cover the true accuracy about 95% of the time", () => {
  // 200 runs of 150 cases whose 3 decisions share a case effect: p_case ~ U(0.4, 1), mean 0.7.
  let covered = 0;
  for (let s = 0; s < 200; s++) {
    const random = seededRandom(1000 + s);
    const acc = new MetricsAccumulator({
      seed: s,
      resamples: 400,
      metrics: [ACCURACY],
      breakdowns: [],
    });
    for (let c = 0; c < 150; c++) {
      const p = 0.4 + 0.6 * random();
      const list = TYPES.map((type, q) => ({
        case: `c${c}`,
        workflow: "w",
        question: `q${q}`,
        type,
        correct: random() < p,
        confidence: 0.7,
        kl: 0.1,
        brier: 0.1,
        error: null,
        latency_ms: null,
        input_tokens: null,
      }));
      acc.addCase(`c${c}`, list);
    }
    const iv = acc.summary().intervals.accuracy!;
    if (iv[0] <= 0.7 && 0.7 <= iv[1]) covered++;
  }
  // Binomial(200, 0.95) lies in [180, 199] with probability above 0.99.
  assert.ok(covered >= 180 && covered <= 199, `covered ${covered} of 200`);
});

Deno.test("the accumulator's state is the same size after 10,000 and 100,000 cases", () => {
  // Histograms grow to their cap and no further: 10,000 cases already fill the confidences' and
  // forecasts' (30,000 distinct values); the 201 whole-millisecond latencies fill 201 cells.
  const options = { seed: 1, resamples: 4 };
  const small = feed(run(10_000, 11), options);
  const large = feed(run(100_000, 12), options);
  assert.equal(large.summary().cases, 100_000);
  assert.equal(large.bytes, small.bytes);
});

Deno.test("a run's accumulator stays under 150 MB: every metric bootstrapped 1,000 times", () => {
  // 3 types, 10 lanes, 30 questions; 2,500 cases fill every histogram to its cap.
  const cases = run(2500, 13).map(([id, list], c) =>
    [
      id,
      list.map((d) => ({ ...d, question: `q${(c % 10) * 3 + TYPES.indexOf(d.type as "noul")}` })),
    ] as [
      string,
      BreakdownInput[],
    ]
  );
  const acc = feed(cases, { seed: 0 });
  assert.equal(acc.breakdown("question").length, 30);
  assert.equal(acc.breakdown("workflow").length, 10);
  assert.ok(acc.bytes < 150e6, `${acc.bytes} bytes`);
  assert.ok(acc.bytes > 40e6, `${acc.bytes} bytes: the histograms are full`);
});
