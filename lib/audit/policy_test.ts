import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import { choosePolicy, POLICY_BARS, type PolicyItem } from "./policy.ts";
import { calibrate, decideWithPolicy, ESCALATE } from "./policy_apply.ts";
import { applyCalibration } from "../metrics/mod.ts";
import { checkPolicy, checkPolicyQuestion } from "./policy_check.ts";
import {
  parsePolicy,
  POLICY_SCHEMA_PATH,
  policyJsonSchema,
  policyJsonSchemaText,
} from "./policy_schema.ts";
import { neededTrials } from "./ltt.ts";

const yesNo = (p: number) => ({ true: p, false: 1 - p });

/** Lane "big": 600 cases, gold "no" at P(yes) = i/1000 (i < 300), gold "yes" above 0.7. */
function items(): PolicyItem[] {
  const out: PolicyItem[] = [];
  for (let i = 0; i < 600; i++) {
    const no = i % 2 === 0;
    const p = no ? (i / 2) / 300 * 0.8 : 0.7 + (i % 300) / 1000;
    out.push({
      id: `b${String(i).padStart(3, "0")}`,
      lane: "big",
      predicted: yesNo(p),
      gold: no ? "false" : "true",
    });
  }
  for (let i = 0; i < 12; i++) {
    out.push({ id: `s${i}`, lane: "small", predicted: yesNo(0.2), gold: i % 2 ? "true" : "false" });
  }
  return out;
}

const base = { question: "ok", type: "noul" as const, options: ["true", "false"], replicates: 0 };

Deno.test("`choosePolicy()` certifies a bar the select part rejects, and leaves a small lane uncertified with the labels it needs", () => {
  const policy = choosePolicy(items(), {
    ...base,
    calibrate: "none",
    split: [0, 1, 1],
    alpha: 0.05,
    delta: 0.05,
  });
  assert.equal(policy.deltaPerLane, 0.025);
  const big = policy.lanes.big!;
  assert.equal(big.certified, true);
  // The chosen bar: the loosest whose select-part false passes still give p ≤ δ/2, all stricter ones too.
  assert.ok(POLICY_BARS.includes(big.threshold!));
  assert.equal(big.selectN, 150, "half of the 300 gold no are in the select part");
  assert.ok(big.selectFailures! <= 3, `failures ${big.selectFailures}`);
  assert.equal(big.heldout.n, 300);
  assert.equal(big.heldout.coverage, 1);
  const small = policy.lanes.small!;
  assert.deepEqual([small.certified, small.threshold, small.neededSelectN], [
    false,
    null,
    neededTrials(0.05, 0.025),
  ]);
  assert.equal(decideWithPolicy(policy, "small", yesNo(0.99)).action, ESCALATE);
  assert.equal(decideWithPolicy(policy, "unknown", yesNo(0.99)).action, ESCALATE);
  assert.equal(decideWithPolicy(policy, "big", yesNo(big.threshold!)).action, "true");
  assert.equal(decideWithPolicy(policy, "big", yesNo(big.threshold! - 1e-9)).action, "false");
  assert.match(policy.guarantee, /δ\/2 = 0.025 \(Bonferroni over 2 lanes\)/);
});

Deno.test("`choosePolicy()` split is seeded, stratified by lane and independent of input order", () => {
  const a = choosePolicy(items(), { ...base, seed: 3, now: new Date(0) });
  const b = choosePolicy(items().reverse(), { ...base, seed: 3, now: new Date(0) });
  assert.deepEqual(a, b);
  const c = choosePolicy(items(), { ...base, seed: 4, now: new Date(0) });
  assert.notDeepEqual(a.calibration.params, c.calibration.params);
  assert.deepEqual([a.split.fit, a.split.select, a.split.heldout], [204, 204, 204]);
});

Deno.test("`choosePolicy()` refuses bad input, one message each", async (t) => {
  const cases: [string, Parameters<typeof choosePolicy>[1], RegExp][] = [
    ["alpha 0", { ...base, alpha: 0 }, /alpha "0" is not in \(0, 1\)/],
    ["delta 1", { ...base, delta: 1 }, /delta "1" is not in \(0, 1\)/],
    [
      "false-pass on a choice question",
      { ...base, type: "choice", options: ["a", "b"] },
      /false-pass needs a yes\/no/,
    ],
    ["platt on a choice question", {
      ...base,
      type: "choice",
      options: ["a", "b"],
      objective: "selective-risk",
      calibrate: "platt",
    }, /fits yes\/no questions only/],
    ["unknown calibration", { ...base, calibrate: "magic" }, /Cannot calibrate with "magic"/],
    ["cost without costs", { ...base, objective: "cost" }, /give the cost matrix/],
    [
      "cost matrix missing an option",
      {
        ...base,
        objective: "cost",
        costs: { true: { true: 0, false: 1, escalate: 0.2 }, false: { true: 5, escalate: 0.2 } },
      },
      /field "false.false" is missing/,
    ],
    ["split without a select part", { ...base, split: [1, 0, 1] }, /select > 0/],
  ];
  for (const [name, options, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => choosePolicy(items(), options), (e: Error) => message.test(e.message));
    });
  }
  assert.throws(() => choosePolicy([], base), /no labelled answers/);
});

Deno.test("a cost policy takes the action of least expected cost", () => {
  const costs = {
    true: { true: 0, false: 10, escalate: 1 },
    false: { true: 10, false: 0, escalate: 1 },
  };
  const policy = choosePolicy(items(), { ...base, objective: "cost", calibrate: "none", costs });
  // Expected cost of passing at P(yes) p: 10(1 − p); escalating: 1; so pass above 0.9, fail below 0.1.
  assert.equal(decideWithPolicy(policy, "big", yesNo(0.95)).action, "true");
  assert.equal(decideWithPolicy(policy, "big", yesNo(0.5)).action, ESCALATE);
  assert.equal(decideWithPolicy(policy, "big", yesNo(0.05)).action, "false");
  const heldout = policy.lanes.big!.heldout;
  assert.ok(heldout.expectedCost?.value !== null && heldout.realisedCost?.value !== null);
  assert.equal(policy.lanes.big!.certified, false, "the cost objective carries no guarantee");
});

Deno.test("policy.json round-trips, follows the shipped JSON Schema, and refuses a broken file", async () => {
  const policy = choosePolicy(items(), { ...base, replicates: 20 });
  const text = JSON.stringify(policy, null, 2);
  assert.deepEqual(parsePolicy(text, "p.json"), policy);
  const shipped = await Deno.readTextFile(new URL(`../../${POLICY_SCHEMA_PATH}`, import.meta.url));
  assert.equal(shipped, policyJsonSchemaText(), "run deno task schema");
  const ajv = new Ajv2020.default({ strict: false });
  const validate = ajv.compile(policyJsonSchema());
  assert.ok(validate(JSON.parse(text)), JSON.stringify(validate.errors));
  assert.ok(!validate({ ...policy, alpha: 1.5 }));
  assert.throws(() => parsePolicy("{", "p.json"), { name: "SyntaxError" });
  assert.throws(
    () => parsePolicy(JSON.stringify({ ...policy, alpha: 2 }), "p.json"),
    { name: "TypeError", message: /Cannot read policy "p.json": field "alpha" is invalid/ },
  );
});

Deno.test("`checkPolicy()` flags a lane whose lower bound exceeds α", () => {
  const records = [
    ...Array.from(
      { length: 40 },
      (_, i) => ({ lane: "x", verdict: i < 20 ? "pass" : "fail", label: false }),
    ),
    ...Array.from(
      { length: 40 },
      (_, i) => ({ lane: "y", verdict: i < 1 ? "pass" : "fail", label: false }),
    ),
    { lane: "y", verdict: "escalate", label: false },
    { lane: "y", verdict: "undecided", label: false },
    { lane: "y", verdict: "pass", label: null },
  ];
  const [x, y] = checkPolicy({ objective: "false-pass", alpha: 0.05 }, records);
  assert.deepEqual([x?.lane, x?.events, x?.trials, x?.holds], ["x", 20, 40, false]);
  assert.deepEqual([y?.lane, y?.events, y?.trials, y?.labelled, y?.holds], ["y", 1, 40, 41, true]);
});

Deno.test("`checkPolicyQuestion()` refuses another question, type or definition", () => {
  const policy = {
    question: "ok",
    type: "noul" as const,
    definition: { type: "noul", instructions: "Fine?" },
  };
  checkPolicyQuestion(policy, "ok", { instructions: "Fine?", type: "noul" }, "p.json");
  checkPolicyQuestion(policy, "ok", null, "p.json");
  assert.throws(
    () => checkPolicyQuestion(policy, "other", null, "p.json"),
    /decides question "ok", not "other"/,
  );
  assert.throws(
    () => checkPolicyQuestion(policy, "ok", { type: "noul", instructions: "Urgent?" }, "p.json"),
    /defined differently here/,
  );
  assert.throws(
    () =>
      checkPolicyQuestion(
        policy,
        "ok",
        { type: "choice", instructions: "Fine?", criteria: ["a"] },
        "p.json",
      ),
    /is a choice question here and a noul question in the policy/,
  );
});

Deno.test("`choosePolicy()` with perLane fits each lane its own calibration and applies it by lane", () => {
  const policy = choosePolicy(items(), { ...base, calibrate: "platt", perLane: true });
  const lanes = policy.calibration.lanes!;
  assert.deepEqual(Object.keys(lanes), ["big", "small"]);
  assert.equal(lanes.big!.fitN, 200);
  assert.notDeepEqual(lanes.big!.params, policy.calibration.params);
  const p = yesNo(0.6);
  assert.deepEqual(
    calibrate(policy, p, "big"),
    applyCalibration({ method: "platt", params: lanes.big!.params }, p),
  );
  assert.deepEqual(
    calibrate(policy, p, "elsewhere"),
    applyCalibration({ method: "platt", params: policy.calibration.params }, p),
  );
});
