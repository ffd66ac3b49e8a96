import assert from "node:assert/strict";
import { assertClose } from "./_assert_close.ts";
import { poissonWeights } from "./_poisson.ts";
import { MetricsAccumulator } from "./accumulator.ts";
import {
  auprcOfHistogram,
  AUROC_BINS,
  aurocOfHistogram,
  ClassAccumulator,
  type ClassInput,
  classResults,
} from "./classes.ts";

/** A decision with the fields a breakdown needs as well. */
type Decision = ClassInput & { case: string; workflow: string; question: string; type: string };

function choice(
  id: string,
  gold: string | null,
  answer: string | null,
  lane = "w",
): Decision {
  return {
    case: id,
    workflow: lane,
    question: "topic",
    type: "choice",
    gold,
    answer,
    predicted: answer === null ? null : {
      a: answer === "a" ? 0.6 : 0.2,
      b: answer === "b" ? 0.6 : 0.2,
      c: answer === "c" ? 0.6 : 0.2,
    },
    gold_probabilities: gold === null ? null : { a: 0, b: 0, c: 0, [gold]: 1 },
    error: answer === null ? { kind: "malformed" } : null,
  };
}

function yesNo(
  id: string,
  gold: "true" | "false" | null,
  p: number | null,
  lane = "w",
): Decision {
  return {
    case: id,
    workflow: lane,
    question: "urgent",
    type: "noul",
    gold,
    answer: p === null ? null : p >= 0.5 ? "true" : "false",
    predicted: p === null ? null : { true: p, false: 1 - p },
    gold_probabilities: gold === null
      ? null
      : { true: gold === "true" ? 1 : 0, false: gold === "true" ? 0 : 1 },
    error: p === null ? { kind: "timeout" } : null,
  };
}

/** AUROC by comparing every positive with every negative, ties ½. */
function pairwiseAuroc(scores: readonly [number, boolean][]): number {
  let pairs = 0;
  let wins = 0;
  for (const [sp, yp] of scores) {
    if (!yp) continue;
    for (const [sn, yn] of scores) {
      if (yn) continue;
      pairs++;
      wins += sp > sn ? 1 : sp === sn ? 0.5 : 0;
    }
  }
  return wins / pairs;
}

/** Average precision with tied scores as one threshold (sklearn's average_precision_score). */
function averagePrecision(scores: readonly [number, boolean][]): number {
  const thresholds = [...new Set(scores.map(([s]) => s))].sort((a, b) => b - a);
  const positives = scores.filter(([, y]) => y).length;
  let ap = 0;
  let prevRecall = 0;
  for (const t of thresholds) {
    const kept = scores.filter(([s]) => s >= t);
    const tp = kept.filter(([, y]) => y).length;
    const recall = tp / positives;
    ap += (recall - prevRecall) * (tp / kept.length);
    prevRecall = recall;
  }
  return ap;
}

Deno.test("classResults() gives the confusion matrix, per-class figures, macro-F1 and the majority baseline", () => {
  // gold a: a a b error; gold b: b c; gold c: a; unlabelled: left out.
  const decisions = [
    choice("1", "a", "a"),
    choice("2", "a", "a"),
    choice("3", "a", "b"),
    choice("4", "a", null),
    choice("5", "b", "b"),
    choice("6", "b", "c"),
    choice("7", "c", "a"),
    choice("8", null, "c"),
    choice("9", null, null),
  ];
  const topic = classResults(decisions, { resamples: 0 }).topic!;
  assert.deepEqual(topic.labels, ["a", "b", "c"]);
  assert.deepEqual(topic.columns, ["a", "b", "c", "error"]);
  assert.deepEqual(topic.confusion, [[2, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 0]]);
  assert.deepEqual(topic.n, 7);
  // a: TP 2, predicted 3, support 4; b: TP 1, predicted 2, support 2; c: TP 0, predicted 1, support 1.
  assert.deepEqual(topic.perClass, [
    { label: "a", precision: 2 / 3, recall: 0.5, f1: 4 / 7, support: 4 },
    { label: "b", precision: 0.5, recall: 0.5, f1: 0.5, support: 2 },
    { label: "c", precision: 0, recall: 0, f1: 0, support: 1 },
  ]);
  assertClose(topic.macroF1!, (4 / 7 + 0.5 + 0) / 3, 1e-12);
  assert.deepEqual(topic.majorityBaseline, 4 / 7);
  assert.deepEqual(topic.auroc, undefined);
  // The diagonal over n is the question's accuracy (errors count as misses).
  assert.deepEqual((2 + 1 + 0) / topic.n, 3 / 7);
});

Deno.test("classResults() leaves a class that occurs nowhere out of macro-F1 and keeps it in the matrix", () => {
  const topic = classResults([choice("1", "a", "a"), choice("2", "b", "a")], { resamples: 0 })
    .topic!;
  assert.deepEqual(topic.labels, ["a", "b", "c"]);
  assert.deepEqual(topic.perClass[2], {
    label: "c",
    precision: null,
    recall: null,
    f1: null,
    support: 0,
  });
  // a: precision 1/2, recall 1 → 2/3; b: never predicted → 0.
  assertClose(topic.macroF1!, (2 / 3 + 0) / 2, 1e-12);
});

Deno.test("classResults() gives each lane its own table in the overall order of classes", () => {
  const topic = classResults([
    choice("1", "a", "a", "email"),
    choice("2", "c", "b", "chat"),
    choice("3", "b", "b", "chat"),
  ], { resamples: 0 }).topic!;
  assert.deepEqual(Object.keys(topic.lanes), ["email", "chat"]);
  assert.deepEqual(topic.lanes.chat!.labels, topic.labels);
  assert.deepEqual(topic.lanes.chat!.confusion, [[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]]);
  assert.deepEqual(topic.lanes.email!.confusion, [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]);
  const sum = topic.confusion.map((row, i) =>
    row.map((v, j) =>
      topic.lanes.chat!.confusion[i]![j]! + topic.lanes.email!.confusion[i]![j]! - v
    )
  );
  assert(sum.every((row) => row.every((v) => v === 0)), "the lanes add up to the whole");
});

Deno.test("classResults() lists every question's lanes in the order of the run's first decisions, labelled or not", () => {
  const results = classResults([
    choice("1", null, "a", "email"), // unlabelled: still the first lane met
    yesNo("1", "true", 0.8, "email"),
    choice("2", "b", "b", "chat"),
    yesNo("2", "false", 0.3, "chat"),
    choice("3", "a", "a", "email"),
  ], { resamples: 0 });
  assert.deepEqual(Object.keys(results.topic!.lanes), ["email", "chat"]);
  assert.deepEqual(Object.keys(results.urgent!.lanes), ["email", "chat"]);
});

Deno.test("AUROC and AUPRC equal the exact pairwise computation when scores of the two classes do not share a bin", () => {
  // Scores on a 0.001 grid (distinct bins), with exact ties across classes (same bin, same score).
  const scores: [number, boolean][] = [
    [0.9, true],
    [0.8, false],
    [0.8, true],
    [0.7, true],
    [0.61, false],
    [0.55, true],
    [0.4, false],
    [0.4, false],
    [0.2, true],
    [0.05, false],
    [0.999, true],
    [0, false],
  ];
  const decisions = scores.map(([p, y], i) => yesNo(`c${i}`, y ? "true" : "false", p));
  decisions.push(yesNo("err", "true", null), yesNo("unl", null, 0.3));
  const urgent = classResults(decisions, { resamples: 0 }).urgent!;
  assertClose(urgent.auroc!, pairwiseAuroc(scores), 1e-12);
  assertClose(urgent.auprc!, averagePrecision(scores), 1e-12);
  assert.deepEqual(urgent.labels, ["true", "false"]);
  // The errored decision is in the error column, not in AUROC.
  assert.deepEqual(urgent.confusion[0]![2], 1);
  assert.deepEqual(urgent.intervals, { auroc: null, auprc: null });
});

Deno.test("AUROC of a 1,000-bin histogram is within the mass of pairs sharing a bin of the exact one", () => {
  let state = 7;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const scores: [number, boolean][] = [];
  for (let i = 0; i < 400; i++) {
    const y = next() < 0.4;
    scores.push([Math.min(1, Math.max(0, (y ? 0.6 : 0.4) + (next() - 0.5) * 0.8)), y]);
  }
  const pos = new Uint32Array(AUROC_BINS);
  const neg = new Uint32Array(AUROC_BINS);
  for (const [s, y] of scores) {
    const bin = Math.min(AUROC_BINS - 1, Math.floor(s * AUROC_BINS));
    (y ? pos : neg)[bin]!++;
  }
  let shared = 0;
  for (let i = 0; i < AUROC_BINS; i++) shared += pos[i]! * neg[i]!;
  const p = scores.filter(([, y]) => y).length;
  const bound = (shared / 2) / (p * (scores.length - p));
  const exact = pairwiseAuroc(scores);
  assert(Math.abs(aurocOfHistogram(pos, neg)! - exact) <= bound + 1e-12);
  assert.deepEqual(aurocOfHistogram([0, 0], [1, 0]), null);
  assert.deepEqual(auprcOfHistogram([0, 0], [1, 0]), null);
});

Deno.test("the AUROC interval is the Poisson bootstrap of the exact AUROC to within the 0.01 grid", () => {
  let state = 11;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const scores: [string, number, boolean][] = [];
  for (let i = 0; i < 300; i++) {
    const y = next() < 0.5;
    const s = Math.round(Math.min(1, Math.max(0, (y ? 0.62 : 0.38) + (next() - 0.5) * 0.9)) * 100) /
      100;
    scores.push([`case-${i}`, s, y]);
  }
  const seed = 5;
  const resamples = 400;
  const urgent = classResults(
    scores.map(([id, s, y]) => yesNo(id, y ? "true" : "false", s)),
    { seed, resamples },
  ).urgent!;
  // Independently: each replicate's exact weighted AUROC with the same case weights.
  const weights = scores.map(([id]) => poissonWeights(seed, id, new Uint8Array(resamples)));
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let wins = 0;
    let pairs = 0;
    scores.forEach(([, sp, yp], i) => {
      if (!yp) return;
      scores.forEach(([, sn, yn], j) => {
        if (yn) return;
        const w = weights[i]![r]! * weights[j]![r]!;
        pairs += w;
        wins += w * (sp > sn ? 1 : sp === sn ? 0.5 : 0);
      });
    });
    values.push(wins / pairs);
  }
  values.sort((a, b) => a - b);
  const q = (p: number) => {
    const h = (values.length - 1) * p;
    const lo = Math.floor(h);
    return values[lo]! + (h - lo) * ((values[lo + 1] ?? values[lo]!) - values[lo]!);
  };
  const [lo, hi] = urgent.intervals!.auroc!;
  // Scores on the 0.01 grid: the replicates' histograms are exact, so are the intervals.
  assertClose(lo, q(0.025), 1e-9);
  assertClose(hi, q(0.975), 1e-9);
  assert(lo <= urgent.auroc! && urgent.auroc! <= hi);
  const pr = urgent.intervals!.auprc!;
  assert(pr[0] <= urgent.auprc! && urgent.auprc! <= pr[1]);
});

Deno.test("ClassAccumulator gives the same results in any case order and merged from parts, in bounded memory", () => {
  const decisions: ClassInput[] = [];
  for (let i = 0; i < 200; i++) {
    const id = `c${i}`;
    const lane = i % 3 === 0 ? "chat" : "email";
    decisions.push(yesNo(id, i % 4 === 0 ? "true" : "false", (i % 17) / 16, lane));
    decisions.push(choice(id, ["a", "b", "c"][i % 3]!, ["a", "b", "c", null][i % 4]!, lane));
  }
  const options = { seed: 3, resamples: 50 };
  const whole = classResults(decisions, options);
  const reversed = classResults([...decisions].reverse(), options);
  assert.deepEqual(reversed.urgent, whole.urgent);
  const a = new ClassAccumulator(options);
  const b = new ClassAccumulator(options);
  for (let i = 0; i < decisions.length; i += 2) {
    (i % 4 === 0 ? a : b).addCase(decisions[i]!.case!, decisions.slice(i, i + 2));
  }
  a.merge(b);
  assert.deepEqual(a.results(), whole);
  const before = a.bytes;
  for (let i = 0; i < 2000; i++) {
    a.addCase(`more${i}`, [
      yesNo(`more${i}`, "true", 0.3, "chat"),
      choice(`more${i}`, "a", "b", "chat"),
    ]);
  }
  assert.deepEqual(a.bytes, before, "memory does not grow with the decisions");
});

Deno.test("ClassAccumulator keeps a score question's level text", () => {
  const acc = new ClassAccumulator({ resamples: 0 });
  acc.addCase("1", [{
    case: "1",
    workflow: "w",
    question: "severity",
    type: "score",
    gold: "1",
    answer: "0",
    predicted: { "0": 0.7, "1": 0.3 },
  }], { questions: { severity: { type: "score", criteria: ["None: fine", "High: broken"] } } });
  const severity = acc.results().severity!;
  assert.deepEqual(severity.levels, ["None: fine", "High: broken"]);
  assert.deepEqual(severity.confusion, [[0, 0, 0], [1, 0, 0]]);
});

Deno.test("classResults() splits a name asked with different options in different lanes into lane/question keys", () => {
  const ask = (id: string, lane: string, options: string[], gold: string, answer: string) => ({
    case: id,
    workflow: lane,
    question: "action",
    type: "choice",
    gold,
    answer,
    predicted: Object.fromEntries(
      options.map((o) => [o, o === answer ? 0.8 : 0.2 / (options.length - 1)]),
    ),
  });
  const results = classResults([
    ask("1", "agents", ["continue", "stop"], "stop", "stop"),
    ask("2", "service", ["answer", "refund", "escalate"], "refund", "answer"),
    ask("3", "agents", ["continue", "stop"], "continue", "stop"),
  ], { resamples: 0 });
  assert.deepEqual(Object.keys(results), ["agents/action", "service/action"]);
  assert.deepEqual(results["agents/action"]!.labels, ["continue", "stop"]);
  assert.deepEqual(results["agents/action"]!.confusion, [[0, 1, 0], [0, 1, 0]]);
  assert.deepEqual(Object.keys(results["service/action"]!.lanes), ["service"]);
  assert.deepEqual(results["service/action"]!.labels, ["answer", "refund", "escalate"]);
});

Deno.test("MetricsAccumulator with `classes` gives the summary the same per-class results as classResults()", () => {
  const decisions = [];
  for (let i = 0; i < 60; i++) {
    const id = `c${i}`;
    const lane = i % 2 ? "chat" : "email";
    decisions.push(
      {
        ...yesNo(id, i % 3 ? "true" : "false", (i % 11) / 10, lane),
        correct: false,
        confidence: 0.5,
        kl: 0.1,
        brier: 0.1,
        latency_ms: 1,
        input_tokens: 1,
      },
      {
        ...choice(id, ["a", "b", "c"][i % 3]!, ["a", "b", null][i % 3]!, lane),
        correct: false,
        confidence: 0.6,
        kl: 0.1,
        brier: 0.1,
        latency_ms: 1,
        input_tokens: 1,
      },
    );
  }
  const options = { seed: 9, resamples: 40 };
  const acc = new MetricsAccumulator({ ...options, classes: true });
  for (let i = 0; i < decisions.length; i += 2) acc.addCase(`c${i / 2}`, decisions.slice(i, i + 2));
  assert.deepEqual(acc.summary().classes, classResults(decisions, options));
  assert.equal(new MetricsAccumulator(options).summary().classes, undefined);
});
