// Every metric's replicate, read off its totals or its sketch, equals the metric computed over
// the replicate's multiset (each case's decisions repeated its Poisson weight times).
import assert from "node:assert/strict";
import { MetricGroup } from "./_group.ts";
import { poissonWeights } from "./_poisson.ts";
import { computeMetrics, METRIC_REGISTRY, type MetricInput } from "./registry.ts";
import { seededRandom } from "./rng.ts";

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

/** The cases of the table with their decisions. */
function casesOf(decisions: readonly MetricInput[]): [string, MetricInput[]][] {
  return [...Map.groupBy(decisions, (d) => d.case as string)];
}

/** Each metric in each replicate, from one group fed the cases with their weights. */
function replicates(decisions: readonly MetricInput[], b: number, seed: number, cap: number) {
  const group = new MetricGroup({
    metrics: METRIC_REGISTRY,
    intervalMetrics: METRIC_REGISTRY,
    resamples: b,
    cap,
  });
  const weights = new Map<string, Uint8Array>();
  for (const [id, list] of casesOf(decisions)) {
    const w = poissonWeights(seed, id, new Uint8Array(b));
    weights.set(id, w);
    group.addCase(list, w);
  }
  return { group, weights };
}

Deno.test("every metric's replicate equals the metric over the replicate's multiset", async (t) => {
  const decisions = table();
  const b = 12;
  const { group, weights } = replicates(decisions, b, 5, 2048);
  // The group's interval reads each replicate's values: recompute them one by one.
  const values = METRIC_REGISTRY.map(() => [] as number[]);
  for (let r = 0; r < b; r++) {
    const expanded = casesOf(decisions).flatMap(([id, list]) =>
      Array.from({ length: weights.get(id)![r]! }, () => list).flat()
    );
    const expected = computeMetrics(expanded);
    METRIC_REGISTRY.forEach((m, k) => {
      const v = expected[m.name];
      if (v !== null && v !== undefined) values[k]!.push(v);
    });
  }
  const intervals = group.intervals(0.95);
  for (const [k, m] of METRIC_REGISTRY.entries()) {
    await t.step(m.name, () => {
      const stats = values[k]!.sort((x, y) => x - y);
      const interval = intervals[m.name];
      if (stats.length === 0) return assert.equal(interval, null);
      assert.ok(interval, m.name);
      const at = (p: number) => {
        const h = (stats.length - 1) * p;
        const lo = Math.floor(h);
        return stats[lo]! + (h - lo) * ((stats[lo + 1] ?? stats[lo]!) - stats[lo]!);
      };
      // Replicate sums add values rounded to 2^-24: within 1e-7 of the unrounded multiset.
      assert.ok(
        Math.abs(interval[0] - at(0.025)) <= 1e-7,
        `${m.name} lower ${interval[0]} vs ${at(0.025)}`,
      );
      assert.ok(
        Math.abs(interval[1] - at(0.975)) <= 1e-7,
        `${m.name} upper ${interval[1]} vs ${at(0.975)}`,
      );
    });
  }
});
