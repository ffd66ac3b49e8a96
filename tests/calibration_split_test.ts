// The calibration measures on the full Typed Decisions test split: a uniform and a fitted run
// against the reference server over real HTTP, each measure checked against an independent,
// deliberately naive recomputation written here from the definitions in the module docs.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import "../lib/server/predictors/mod.ts";
import {
  loadWorkflow,
  runBenchmark,
  type RunResult,
  validateWorkflow,
} from "../lib/workflow/mod.ts";
import { type DecisionRecord, listRuns, openIndex, readDecisions } from "../lib/record/mod.ts";
import { computeMetric, metricByName } from "../lib/metrics/registry.ts";
import { murphyDecomposition, temperatureWhatIf } from "../lib/metrics/mod.ts";

/** Thresholds on calibration measures: each run records them beside the headline ones. */
const THRESHOLDS = [
  { metric: "ece_em", op: "<=", limit: 0.1 },
  { metric: "aurc", op: "<=", limit: 0.2 },
  { metric: "score_within_one", op: ">=", limit: 0.9 },
];

async function runOn(predictor: string): Promise<RunResult> {
  await using server = await startReferenceServer({ predictor });
  const workflow = validateWorkflow({
    ...(await loadWorkflow("workflows/reference.ts")),
    thresholds: THRESHOLDS,
  }, "calibration_split_test");
  const result = await runBenchmark(workflow, {
    baseUrl: server.url,
    outDir: await Deno.makeTempDir(),
    dbPath: `${await Deno.makeTempDir()}/index.db`,
  });
  assert.equal(result.status, "completed");
  assert.equal(result.run.summary?.decisions, 2000);
  return result;
}

const RESULTS: Record<string, RunResult> = {
  uniform: await runOn("uniform"),
  fitted: await runOn("fitted"),
};
const RUNS: Record<string, DecisionRecord[]> = {
  uniform: await readDecisions(`${RESULTS.uniform!.dir}/decisions.jsonl`),
  fitted: await readDecisions(`${RESULTS.fitted!.dir}/decisions.jsonl`),
};

Deno.test("thresholds on calibration measures are checked against the run's values", () => {
  const results = (name: string) =>
    RESULTS[name]!.run.thresholds.map((t) => [t.metric, t.pass, t.value]);
  const fitted = RESULTS.fitted!.run.summary!.metrics;
  // fitted: ECE 0.152 > 0.1 fails; AURC 0.112 and within-one 97.1% pass
  assert.deepEqual(results("fitted"), [
    ["ece_em", false, fitted.ece_em],
    ["aurc", true, fitted.aurc],
    ["score_within_one", true, fitted.score_within_one],
  ]);
  // uniform: ECE 0.049 passes, AURC 0.601 and within-one 35.5% fail
  assert.deepEqual(results("uniform").map((r) => r[1]), [true, false, false]);
});

for (const [name, result] of Object.entries(RESULTS)) {
  Deno.test(`${name} run: run.json holds every calibration measure with its interval`, () => {
    const summary = result.run.summary!;
    for (const metric of ["ece_15", "ece_em", "ece_debiased", "aurc", "brier_rel", "score_mae"]) {
      const recorded = summary.metrics[metric];
      const iv = summary.intervals[metric];
      assert.equal(typeof recorded, "number", metric);
      assert.ok(iv && iv[0] <= iv[1], `${metric} interval`);
      close(recorded!, value(metric, RUNS[name]!)!, 1e-12, `${metric} recorded`);
    }
  });

  Deno.test(`${name} run: the SQLite index has a column for every calibration measure`, () => {
    const index = openIndex(result.indexed!, { readOnly: true });
    try {
      const [run] = listRuns(index);
      for (const metric of ["ece_em", "ece_debiased", "mce", "brier_res", "acc_at_80"]) {
        assert.equal(run!.metrics[metric], result.run.summary!.metrics[metric], metric);
      }
    } finally {
      index.close();
    }
  });
}

function value(name: string, records: readonly DecisionRecord[]): number | null {
  const metric = metricByName(name);
  assert.ok(metric, `metric ${name} is registered`);
  return computeMetric(metric, records);
}

function close(actual: number | null, expected: number, tolerance: number, what: string): void {
  assert.equal(typeof actual, "number", what);
  assert.ok(
    Math.abs((actual as number) - expected) <= tolerance,
    `${what}: ${actual} vs independent ${expected}`,
  );
}

// ---- independent recomputations (naive on purpose: no shared helpers) ----

interface Bin {
  n: number;
  right: number;
  conf: number;
}

function binsBy(records: readonly DecisionRecord[], binOf: (r: DecisionRecord) => number): Bin[] {
  const bins: Bin[] = [];
  for (const r of records) {
    const b = binOf(r);
    bins[b] ??= { n: 0, right: 0, conf: 0 };
    bins[b]!.n += 1;
    bins[b]!.right += r.correct ? 1 : 0;
    bins[b]!.conf += r.confidence!;
  }
  return bins.filter((b) => b !== undefined);
}

function naiveEce(bins: Bin[]): number {
  const total = bins.reduce((n, b) => n + b.n, 0);
  return bins.reduce((s, b) => s + b.n * Math.abs(b.right / b.n - b.conf / b.n), 0) / total;
}

function widthBins(records: readonly DecisionRecord[], count: number): Bin[] {
  return binsBy(records, (r) => Math.min(Math.floor(r.confidence! * count), count - 1));
}

/** Equal-mass bins: rank of a decision = how many confidences are strictly smaller. */
function massBins(records: readonly DecisionRecord[], count: number): Bin[] {
  const all = records.map((r) => r.confidence!);
  return binsBy(records, (r) => {
    const rank = all.filter((c) => c < r.confidence!).length;
    return Math.floor((count * rank) / all.length);
  });
}

/** E|X| for X ~ N(mu, sd²) by Simpson's rule. */
function meanAbs(mu: number, sd: number): number {
  if (sd === 0) return Math.abs(mu);
  const steps = 4000;
  const lo = mu - 10 * sd;
  const h = (20 * sd) / steps;
  let sum = 0;
  for (let i = 0; i <= steps; i++) {
    const x = lo + i * h;
    const w = i === 0 || i === steps ? 1 : i % 2 ? 4 : 2;
    sum += w * Math.abs(x) * Math.exp(-((x - mu) ** 2) / (2 * sd * sd));
  }
  return (sum * h) / 3 / (sd * Math.sqrt(2 * Math.PI));
}

function naiveDebiased(bins: Bin[]): number {
  const total = bins.reduce((n, b) => n + b.n, 0);
  let sum = 0;
  for (const b of bins) {
    const acc = b.right / b.n;
    const gap = acc - b.conf / b.n;
    sum += (b.n / total) * (2 * Math.abs(gap) - meanAbs(gap, Math.sqrt(acc * (1 - acc) / b.n)));
  }
  return sum;
}

function byQuestion(records: readonly DecisionRecord[]): DecisionRecord[][] {
  const keys = [...new Set(records.map((r) => `${r.workflow}/${r.question}`))];
  return keys.map((k) => records.filter((r) => `${r.workflow}/${r.question}` === k));
}

/** Expected errors among the k most confident, ties shared in proportion. */
function expectedRisk(records: readonly DecisionRecord[], k: number): number {
  const sorted = records.map((r) => r.confidence!).sort((a, b) => b - a);
  const cut = sorted[k - 1]!;
  const above = records.filter((r) => r.confidence! > cut);
  const tie = records.filter((r) => r.confidence! === cut);
  const wrongAbove = above.filter((r) => !r.correct).length;
  const wrongTie = tie.filter((r) => !r.correct).length;
  return (wrongAbove + wrongTie * (k - above.length) / tie.length) / k;
}

function level(distribution: Record<string, number>): number {
  return Object.entries(distribution).reduce((s, [k, p]) => s + Number(k) * p, 0);
}

for (const [name, records] of Object.entries(RUNS)) {
  Deno.test(`${name} run: ECE variants and MCE equal their independent recomputation`, () => {
    close(value("ece_15", records), naiveEce(widthBins(records, 15)), 1e-12, "ece_15");
    close(value("ece_em", records), naiveEce(massBins(records, 15)), 1e-12, "ece_em");
    close(value("ece_debiased", records), naiveDebiased(massBins(records, 15)), 1e-6, "debiased");
    const perQuestion = byQuestion(records).map((g) => naiveEce(widthBins(g, 10)));
    close(
      value("ece_per_question", records),
      perQuestion.reduce((a, b) => a + b, 0) / perQuestion.length,
      1e-12,
      "ece_per_question",
    );
    const gaps = widthBins(records, 10).map((b) => Math.abs(b.right / b.n - b.conf / b.n));
    close(value("mce", records), Math.max(...gaps), 1e-12, "mce");
  });

  Deno.test(`${name} run: the Murphy decomposition adds up to the label Brier of yes/no questions`, () => {
    const noul = records.filter((r) => r.type === "noul");
    assert.equal(noul.length, 600);
    const labelBrier = noul.reduce((s, r) => {
      const o = r.gold === "true" ? 1 : 0;
      return s + (r.predicted!.true! - o) ** 2;
    }, 0) / 600;
    const rate = noul.filter((r) => r.gold === "true").length / 600;
    const groups = new Map<string, DecisionRecord[]>();
    for (const r of noul) {
      const key = String(r.predicted!.true);
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    let rel = 0;
    let res = 0;
    for (const group of groups.values()) {
      const f = group[0]!.predicted!.true!;
      const o = group.filter((r) => r.gold === "true").length / group.length;
      rel += group.length * (f - o) ** 2 / 600;
      res += group.length * (o - rate) ** 2 / 600;
    }
    const m = murphyDecomposition(noul)!;
    close(value("brier_rel", records), rel, 1e-12, "brier_rel");
    close(value("brier_res", records), res, 1e-12, "brier_res");
    close(value("brier_unc", records), rate * (1 - rate), 1e-12, "brier_unc");
    close(m.reliability - m.resolution + m.uncertainty, labelBrier, 1e-12, "rel − res + unc");
    // the headline Brier of a yes/no decision sums both answers against the gold distribution
    const headline = noul.reduce((s, r) => s + r.brier!, 0) / 600;
    assert.notEqual(headline.toFixed(6), labelBrier.toFixed(6));
    if (name === "uniform") {
      // one forecast (0.5) for every decision: no resolution, reliability (0.5 − ō)²
      assert.equal(m.groups, 1);
      assert.equal(m.resolution, 0);
      close(m.reliability, (0.5 - rate) ** 2, 1e-12, "uniform reliability");
    }
  });

  Deno.test(`${name} run: AURC and accuracy at 50 % / 80 % coverage`, () => {
    let area = 0;
    for (let k = 1; k <= 2000; k++) area += expectedRisk(records, k);
    close(value("aurc", records), area / 2000, 1e-12, "aurc");
    close(value("acc_at_50", records), 1 - expectedRisk(records, 1000), 1e-12, "acc_at_50");
    close(value("acc_at_80", records), 1 - expectedRisk(records, 1600), 1e-12, "acc_at_80");
  });

  Deno.test(`${name} run: score MAE and within-one over the 800 score decisions`, () => {
    const score = records.filter((r) => r.type === "score");
    assert.equal(score.length, 800);
    const mae = score.reduce(
      (s, r) => s + Math.abs(level(r.predicted!) - level(r.gold_probabilities!)),
      0,
    ) / 800;
    close(value("score_mae", records), mae, 1e-12, "score_mae");
    const within = score.filter((r) => Math.abs(Number(r.answer) - Number(r.gold)) <= 1).length;
    close(value("score_within_one", records), within / 800, 1e-12, "score_within_one");
  });
}

Deno.test("uniform run: a temperature changes nothing on uniform answers", () => {
  const whatIf = temperatureWhatIf(RUNS.uniform!, { seed: 0 });
  assert.equal(whatIf.fitCases + whatIf.heldOutCases, 400);
  assert.equal(whatIf.questions.length, 20);
  close(whatIf.overall.nllAfter, whatIf.overall.nllBefore!, 1e-9, "nll");
  close(whatIf.overall.eceAfter, whatIf.overall.eceBefore!, 1e-9, "ece");
});

Deno.test("fitted run: the fitted model is underconfident, so its temperatures sharpen and help", () => {
  const whatIf = temperatureWhatIf(RUNS.fitted!, { seed: 0 });
  assert.equal(whatIf.overall.n, 2000 - whatIf.questions.reduce((n, r) => n + r.fitted, 0));
  assert.ok(whatIf.questions.filter((r) => r.temperature! < 1).length >= 15);
  assert.ok(whatIf.overall.nllAfter! < whatIf.overall.nllBefore!);
  assert.ok(whatIf.overall.eceAfter! < whatIf.overall.eceBefore!);
});
