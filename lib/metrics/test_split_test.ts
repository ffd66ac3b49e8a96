/**
 * Integration: scores reference predictors on the real Typed Decisions test split (2,000
 * decisions), read straight from the JSONL so this test depends on no loader; and checks the
 * streaming accumulator against the figures the whole-list estimators give on it.
 */
import assert from "node:assert/strict";
import { optionsOf } from "../dataset/questions.ts";
import type { Case } from "../dataset/schemas.ts";
import { assertClose } from "./_assert_close.ts";
import { normalizeNoul, scoreDecision } from "./score.ts";
import { breakdown, type BreakdownInput, rating, summarize } from "./summary.ts";
import { MetricsAccumulator } from "./accumulator.ts";
import { MetricGroup } from "./_group.ts";
import { HEADLINE_METRIC_NAMES, METRIC_REGISTRY } from "./registry.ts";
import { shuffle } from "./rng.ts";

const VENDORED = new URL("../../vendor/typed-decisions/test.jsonl.gz", import.meta.url);
const SHARED = new URL("../../../shared/typed-decisions/test.jsonl", import.meta.url);

/** The test split's rows: the vendored gzip when present, else the shared JSONL. */
async function readTestSplit(): Promise<Case[]> {
  let text: string;
  try {
    const gz = await Deno.readFile(VENDORED);
    const stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    text = await new Response(stream).text();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    text = await Deno.readTextFile(SHARED);
  }
  return text.split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as Case);
}

type Predictor = (options: string[], c: Case, question: string) => Record<string, number>;

function scoreSplit(cases: readonly Case[], predict: Predictor): BreakdownInput[] {
  const out: BreakdownInput[] = [];
  for (const c of cases) {
    for (const [name, question] of Object.entries(c.questions)) {
      const gold = c.gold[name];
      assert.ok(gold, `case ${c.id} has no gold for ${name}`);
      const options = optionsOf(question);
      const predicted = predict(options, c, name);
      const s = scoreDecision(options, predicted, gold);
      const inOrder = (p: Record<string, number>) =>
        Object.fromEntries(options.map((o) => [o, p[o] ?? 0]));
      out.push({
        case: c.id,
        workflow: c.workflow,
        question: name,
        type: question.type,
        ...s,
        predicted: inOrder(predicted),
        gold: gold.label,
        gold_probabilities: inOrder(gold.probabilities),
        error: null,
        latency_ms: null,
        input_tokens: null,
      });
    }
  }
  return out;
}

const uniform: Predictor = (options, c, name) =>
  c.questions[name]?.type === "noul"
    ? normalizeNoul(0.5)
    : Object.fromEntries(options.map((o) => [o, 1 / options.length]));

const oracle: Predictor = (_options, c, name) => c.gold[name]?.probabilities ?? {};

/** FNV-1a of a string, as a fraction in [0, 1). */
function hash01(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h / 4294967296;
}

/**
 * A predictor with continuous confidences (every decision's distinct): a softmax leaning towards
 * the gold distribution by a hashed share u and towards a hashed option by 1 − u, so it makes
 * confident mistakes as well as confident hits.
 */
const mixed: Predictor = (options, c, name) => {
  const gold = c.gold[name]?.probabilities ?? {};
  const u = hash01(`${c.id}/${name}`);
  const decoy = options[Math.floor(hash01(`${name}/${c.id}`) * options.length)];
  const logits = options.map((o) => 4 * (u * (gold[o] ?? 0) + (1 - u) * (o === decoy ? 1 : 0)));
  const total = logits.reduce((sum, x) => sum + Math.exp(x), 0);
  return Object.fromEntries(options.map((o, i) => [o, Math.exp(logits[i]!) / total]));
};

const cases = await readTestSplit();

Deno.test("the test split has 400 cases and 2,000 decisions", () => {
  assert.equal(cases.length, 400);
  assert.equal(cases.reduce((n, c) => n + Object.keys(c.questions).length, 0), 2000);
});

Deno.test("a uniform predictor scores the card's KL 0.444 and Brier 0.238 on the test split", () => {
  const decisions = scoreSplit(cases, uniform);
  const s = summarize(decisions, { resamples: 200 });
  assert.equal(s.decisions, 2000);
  assert.equal(s.answered, 2000);
  assert.equal(Number(s.metrics.kl?.toFixed(3)), 0.444);
  assert.equal(Number(s.metrics.brier?.toFixed(3)), 0.238);
  assert.ok(
    s.intervals.kl !== null && s.intervals.kl[0] <= s.metrics.kl! &&
      s.metrics.kl! <= s.intervals.kl[1],
  );
  assert.ok(s.intervals.accuracy !== null);
  assert.ok(
    s.intervals.accuracy[0] <= s.metrics.accuracy! &&
      s.metrics.accuracy! <= s.intervals.accuracy[1],
  );
});

Deno.test("an oracle predictor (gold as prediction) scores KL 0 and Brier 0 on the test split", () => {
  const decisions = scoreSplit(cases, oracle);
  const s = summarize(decisions, { resamples: 0 });
  assertClose(s.metrics.kl, 0, 1e-12);
  assertClose(s.metrics.brier, 0, 1e-12);
  // ties between gold answers go to the option listed first, which is not always the
  // dataset's label: the oracle misses some of the 35 tied decisions, never more
  assert.ok(
    s.metrics.accuracy! >= 1965 / 2000 && s.metrics.accuracy! <= 1999 / 2000,
    `accuracy ${s.metrics.accuracy}`,
  );
  assert.equal(rating(s), "★★★");
  assert.deepEqual(breakdown(decisions, "workflow", { resamples: 0 }).map((r) => r.decisions), [
    500,
    500,
    500,
    500,
  ]);
  assert.equal(breakdown(decisions, "question", { resamples: 0 }).length, 20);
});

/**
 * Every metric on the test split as the whole-list estimators (every decision held, sorted or
 * grouped at once) give it, recorded from them: the figures the bounded summaries must keep.
 */
const WHOLE_LIST: Record<string, Record<string, number>> = {
  uniform: {
    accuracy: 0.274,
    kl: 0.4444631940345047,
    brier: 0.23818816583553326,
    ece: 0.04849999999999875,
    nll: 1.211821739649012,
    ece_15: 0.04849999999999875,
    ece_em: 0.0485,
    ece_debiased: 0.04571298045375501,
    ece_per_question: 0.16149999999999992,
    mce: 0.06571428571428392,
    brier_rel: 0.00006944444444444396,
    brier_res: 0,
    brier_unc: 0.24993055555555554,
    aurc: 0.6010037366991526,
    acc_at_50: 0.3802727272727272,
    acc_at_80: 0.30823863636363624,
    score_mae: 0.7062757275000004,
    score_within_one: 0.355,
  },
  mixed: {
    accuracy: 0.5575,
    kl: 0.6923949570272449,
    brier: 0.36360493117661097,
    ece: 0.24898544741538803,
    nll: 1.1959685009060106,
    ece_15: 0.25273768909898914,
    ece_em: 0.2578764852869676,
    ece_debiased: 0.2555298921731566,
    ece_per_question: 0.26419962086897253,
    mce: 0.716559623726811,
    brier_rel: 0.2401213023270904,
    brier_res: 0.24993055555555516,
    brier_unc: 0.24993055555555554,
    aurc: 0.3533269792415924,
    acc_at_50: 0.596,
    acc_at_80: 0.5487500000000001,
    score_mae: 0.6883326548083827,
    score_within_one: 0.735,
  },
};

const PREDICTORS: Record<string, Predictor> = { uniform, mixed };

for (const [name, predict] of Object.entries(PREDICTORS)) {
  Deno.test(`the streaming accumulator keeps the whole-list figures on the test split (${name})`, () => {
    const decisions = scoreSplit(cases, predict);
    const acc = new MetricsAccumulator({ seed: 0, resamples: 100 });
    for (const [id, list] of shuffle([...Map.groupBy(decisions, (d) => d.case)], 9)) {
      acc.addCase(id, list);
    }
    const { metrics, intervals } = acc.summary();
    for (const m of METRIC_REGISTRY) {
      const today = WHOLE_LIST[name]![m.name]!;
      const headline = (HEADLINE_METRIC_NAMES as readonly string[]).includes(m.name);
      assertClose(metrics[m.name], today, headline ? 1e-9 : 1e-3, `${m.name}: ${metrics[m.name]}`);
      assert.ok(intervals[m.name], `${m.name} has an interval`);
    }
  });
}

Deno.test("past the histogram's cap, the rank-based measures stay within 1e-3 on the test split", () => {
  // 2,000 distinct confidences in 512 cells: ranks are read off the dyadic grid. (The Murphy
  // split by distinct forecast has no such bound: past the cap a cell is one forecast group.)
  const decisions = scoreSplit(cases, mixed);
  const group = new MetricGroup({
    metrics: METRIC_REGISTRY,
    intervalMetrics: [],
    resamples: 0,
    cap: 512,
  });
  group.addCase(decisions, null);
  const values = group.values();
  const names = ["ece_em", "ece_debiased", "aurc", "acc_at_50", "acc_at_80"];
  for (const name of names) {
    assertClose(values[name], WHOLE_LIST.mixed![name]!, 1e-3, `${name}: ${values[name]}`);
  }
  assert.ok(names.some((name) => values[name] !== WHOLE_LIST.mixed![name]), "read off the grid");
});
