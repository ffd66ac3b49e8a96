/**
 * The guarantee of `choosePolicy`, measured: the whole procedure (split, calibration, Learn then
 * Test per lane) is repeated on fresh labelled samples from a known over-confident model (the
 * `synthetic` predictor at temperature 0.5 with skill 1), and each repetition's chosen bars are
 * scored on a large fresh sample. The share of repetitions in which some certified lane's realised
 * rate exceeds α must stay within δ (plus binomial slack).
 */
import assert from "node:assert/strict";
import { choosePolicy, decideWithPolicy, ESCALATE, type PolicyItem } from "../lib/audit/mod.ts";
import { binomialCdf } from "../lib/audit/binomial.ts";
import { seededRandom } from "../lib/metrics/mod.ts";
import { syntheticDistribution } from "../lib/server/mod.ts";

const REPETITIONS = 200;
const LANES = ["a", "b"];
const OPTIONS = ["true", "false"];

function sample(seed: number, perLane: number, prefix: string, skill: number): PolicyItem[] {
  const random = seededRandom(seed);
  const items: PolicyItem[] = [];
  for (const lane of LANES) {
    for (let i = 0; i < perLane; i++) {
      const gold = random() < 0.5 ? "true" : "false";
      const id = `${prefix}${lane}${i}`;
      items.push({
        id,
        lane,
        gold,
        predicted: syntheticDistribution(id, "q", OPTIONS, gold, { skill, temperature: 0.5, seed }),
      });
    }
  }
  return items;
}

/** The largest count c with P(X > c) ≥ 0.001 for X ~ Binomial(n, δ): the test's slack. */
function slack(n: number, delta: number): number {
  let c = 0;
  while (1 - binomialCdf(c, n, delta) > 0.001) c++;
  return c;
}

Deno.test("a false-pass policy keeps every certified lane's rate ≤ α in at least 1 − δ of repetitions", () => {
  const alpha = 0.05;
  const delta = 0.05;
  const fresh = sample(1_000_000, 6000, "f", 1).filter((i) => i.gold === "false");
  let violations = 0;
  let certified = 0;
  const rates: number[] = [];
  for (let r = 0; r < REPETITIONS; r++) {
    const policy = choosePolicy(sample(r, 900, "c", 1), {
      question: "q",
      type: "noul",
      options: OPTIONS,
      alpha,
      delta,
      calibrate: r % 2 ? "isotonic" : "temperature",
      seed: r,
      replicates: 0,
    });
    let violated = false;
    for (const lane of LANES) {
      if (!policy.lanes[lane]?.certified) continue;
      certified++;
      const negatives = fresh.filter((i) => i.lane === lane);
      const passes = negatives.filter((i) =>
        decideWithPolicy(policy, lane, i.predicted).action === "true"
      ).length;
      const rate = passes / negatives.length;
      rates.push(rate);
      if (rate > alpha) violated = true;
    }
    if (violated) violations++;
  }
  console.log(
    `false-pass: ${violations} of ${REPETITIONS} repetitions had a certified lane above α = ${alpha} (δ = ${delta}); ${certified} of ${
      REPETITIONS * LANES.length
    } lanes certified; realised rates ${Math.min(...rates).toFixed(4)}–${
      Math.max(...rates).toFixed(4)
    }`,
  );
  assert.ok(certified >= 0.9 * REPETITIONS * LANES.length, `only ${certified} lanes certified`);
  assert.ok(violations <= slack(REPETITIONS, delta), `${violations} violations`);
});

Deno.test("a selective-risk policy keeps every certified lane's error among answered ≤ α in at least 1 − δ of repetitions", () => {
  const alpha = 0.1;
  const delta = 0.05;
  const fresh = sample(2_000_000, 6000, "f", 1.5);
  let violations = 0;
  let certified = 0;
  const coverages: number[] = [];
  for (let r = 0; r < REPETITIONS; r++) {
    const policy = choosePolicy(sample(r, 900, "c", 1.5), {
      question: "q",
      type: "noul",
      options: OPTIONS,
      objective: "selective-risk",
      alpha,
      delta,
      calibrate: r % 2 ? "platt" : "temperature",
      seed: r,
      replicates: 0,
    });
    let violated = false;
    for (const lane of LANES) {
      if (!policy.lanes[lane]?.certified) continue;
      certified++;
      let answered = 0;
      let wrong = 0;
      const cases = fresh.filter((i) => i.lane === lane);
      for (const item of cases) {
        const { action } = decideWithPolicy(policy, lane, item.predicted);
        if (action === ESCALATE) continue;
        answered++;
        if (action !== item.gold) wrong++;
      }
      coverages.push(answered / cases.length);
      if (answered > 0 && wrong / answered > alpha) violated = true;
    }
    if (violated) violations++;
  }
  console.log(
    `selective-risk: ${violations} of ${REPETITIONS} repetitions had a certified lane above α = ${alpha} (δ = ${delta}); ${certified} of ${
      REPETITIONS * LANES.length
    } lanes certified; coverage ${Math.min(...coverages).toFixed(3)}–${
      Math.max(...coverages).toFixed(3)
    }`,
  );
  assert.ok(certified >= 0.9 * REPETITIONS * LANES.length, `only ${certified} lanes certified`);
  assert.ok(violations <= slack(REPETITIONS, delta), `${violations} violations`);
});
