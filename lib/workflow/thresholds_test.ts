import assert from "node:assert/strict";
import { bootstrapIntervals } from "../metrics/bootstrap.ts";
import {
  checkThresholdTargets,
  evaluateThresholds,
  markNotEvaluated,
  thresholdDecisions,
} from "./thresholds.ts";

function decision(i: number, question: string, workflow: string, correct: boolean) {
  return {
    case: `c${i}`,
    workflow,
    question,
    type: "noul",
    correct,
    confidence: 0.8,
    kl: correct ? 0.2 : 1.6,
    brier: correct ? 0.08 : 1.28,
    gold: correct ? "true" : "false",
    predicted: { true: 0.8, false: 0.2 },
    error: null,
  };
}

// 40 cases: question "urgent" right in 37 (92.5%), question "team" right in 20 (50%).
const DECISIONS = Array.from({ length: 40 }, (_, i) => [
  decision(i, "urgent", i < 20 ? "billing" : "shipping", i >= 3),
  decision(i, "team", i < 20 ? "billing" : "shipping", i % 2 === 0),
]).flat();

Deno.test("`evaluateThresholds()` restricts a metric to a question or a lane", () => {
  const [urgent, team, shipping, all] = evaluateThresholds([
    { metric: "accuracy", question: "urgent", op: ">=", limit: 0.9 },
    { metric: "accuracy", question: "team", op: ">=", limit: 0.9 },
    { metric: "accuracy", question: "urgent", lane: "shipping", op: ">=", limit: 1 },
    { metric: "accuracy", op: ">=", limit: 0.7 },
  ], DECISIONS);
  assert.deepEqual(urgent, {
    metric: "accuracy",
    question: "urgent",
    op: ">=",
    limit: 0.9,
    value: 37 / 40,
    pass: true,
  });
  assert.equal(team?.value, 0.5);
  assert.equal(team?.pass, false);
  assert.equal(shipping?.value, 1, "the three misses are all in the billing lane");
  assert.equal(shipping?.lane, "shipping");
  assert.equal(all?.value, 57 / 80);
});

Deno.test("`evaluateThresholds()` with a lower bound fails where the point estimate passes", () => {
  const [estimate, lower] = evaluateThresholds(
    [
      { metric: "accuracy", question: "urgent", op: ">=", limit: 0.9 },
      { metric: "accuracy", question: "urgent", op: ">=", limit: 0.9, bound: "lower" },
    ],
    DECISIONS,
    { seed: 3 },
  );
  assert.equal(estimate?.pass, true, "92.5% ≥ 90%");
  const interval = bootstrapIntervals(thresholdDecisions({ question: "urgent" }, DECISIONS), {
    seed: 3,
  }).accuracy!;
  assert.equal(lower?.value, interval[0], "the value compared is the interval's lower bound");
  assert.ok(lower!.value! < 0.9, `lower bound ${lower?.value} is below the limit`);
  assert.equal(lower?.pass, false);
  assert.equal(lower?.estimate, 37 / 40, "the record keeps the estimate beside the bound");
  assert.equal(lower?.bound, "lower");
});

Deno.test("`evaluateThresholds()` compares an upper bound for lower-is-better metrics; n/a fails", () => {
  const [estimate, upper, none] = evaluateThresholds(
    [
      { metric: "kl", question: "team", op: "<=", limit: 1 },
      { metric: "kl", question: "team", op: "<=", limit: 1, bound: "upper" },
      { metric: "accuracy", lane: "nowhere", op: ">=", limit: 0 },
    ],
    DECISIONS,
    { seed: 1 },
  );
  assert.ok(
    Math.abs(upper!.estimate! - 0.9) < 1e-12,
    "mean KL of 20 right (0.2) and 20 wrong (1.6)",
  );
  assert.equal(estimate?.pass, true, "0.9 ≤ 1");
  assert.ok(upper!.value! > 1 && upper?.pass === false, `upper bound ${upper?.value} is above 1`);
  assert.equal(none?.value, null);
  assert.equal(none?.pass, false);
});

Deno.test("`evaluateThresholds()` leaves decisions without gold out of every metric", () => {
  const unlabelled = {
    ...decision(99, "urgent", "billing", false),
    gold: null,
    kl: null,
    brier: null,
  };
  const [r] = evaluateThresholds([{ metric: "accuracy", question: "urgent", op: ">=", limit: 0 }], [
    ...DECISIONS,
    unlabelled,
  ]);
  assert.equal(r?.value, 37 / 40, "an unlabelled decision is not a miss");
});

Deno.test("`checkThresholdTargets()` leaves a threshold a partial selection cannot reach not evaluated", async (t) => {
  const selected = { lanes: new Map([["email", 3]]), questions: ["urgent"] };
  const eligible = { cases: 10, lanes: ["email", "chat"], questions: ["urgent", "topic"] };
  const specs = [
    { metric: "accuracy", lane: "chat", op: ">=" as const, limit: 0.2 },
    { metric: "accuracy", question: "topic", op: ">=" as const, limit: 0.2 },
    { metric: "accuracy", lane: "email", op: ">=" as const, limit: 0.2 },
  ];
  await t.step("partial: not evaluated, with the reason", () => {
    const skipped = checkThresholdTargets(specs, selected, "w.yaml", {
      partial: "--limit 3",
      eligible,
    });
    assert.deepEqual([...skipped], [
      [0, 'no case selected by --limit 3 has lane "chat"'],
      [1, 'no case selected by --limit 3 has question "topic"'],
    ]);
    const marked = markNotEvaluated(
      specs.map((s) => ({ ...s, value: null, pass: false })),
      skipped,
    );
    assert.deepEqual(marked.map((r) => r.pass), [null, null, false]);
    assert.equal(marked[0]?.not_evaluated, 'no case selected by --limit 3 has lane "chat"');
  });
  await t.step("the whole set: refused", () => {
    assert.throws(
      () => checkThresholdTargets(specs, selected, "w.yaml", { eligible }),
      /field "thresholds\.0\.lane": no selected case has lane "chat"/,
    );
  });
  await t.step("partial, but no eligible case has it either: refused", () => {
    assert.throws(
      () =>
        checkThresholdTargets([{ ...specs[0]!, lane: "fax" }], selected, "w.yaml", {
          partial: "--limit 3",
          eligible,
        }),
      /no selected case has lane "fax"/,
    );
  });
});
