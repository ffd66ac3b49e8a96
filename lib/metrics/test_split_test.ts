/**
 * Integration: scores reference predictors on the real Typed Decisions test split (2,000
 * decisions), read straight from the JSONL so this test depends on no loader.
 */
import assert from "node:assert/strict";
import { optionsOf } from "../dataset/questions.ts";
import type { Case } from "../dataset/schemas.ts";
import { assertClose } from "./_assert_close.ts";
import { normalizeNoul, scoreDecision } from "./score.ts";
import { breakdown, type BreakdownInput, rating, summarize } from "./summary.ts";

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
      const s = scoreDecision(options, predict(options, c, name), gold);
      out.push({
        case: c.id,
        workflow: c.workflow,
        question: name,
        type: question.type,
        ...s,
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
