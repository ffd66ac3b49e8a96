import assert from "node:assert/strict";
import type { RunPolicy, RunPolicyLane } from "../record/mod.ts";
import { policyChecks } from "./ci.ts";
import { policyData } from "./policy.ts";

function lane(name: string, over: Partial<RunPolicyLane>): RunPolicyLane {
  return {
    lane: name,
    known: true,
    certified: true,
    threshold: 0.9,
    neededSelectN: null,
    verdicts: { pass: 10, fail: 90, answer: 0, escalate: 0, undecided: 0 },
    labelled: 100,
    events: 1,
    trials: 80,
    rate: 1 / 80,
    lower95: 0.0006,
    upper95: 0.058,
    holds: true,
    ...over,
  };
}

const policy: RunPolicy = {
  file: "urgent.policy.json",
  sha256: "c".repeat(64),
  question: "urgent",
  type: "noul",
  objective: "false-pass",
  alpha: 0.05,
  delta: 0.05,
  calibration: "temperature",
  source: { run: "20260101-000000-tickets-0000", fingerprint: "f".repeat(16) },
  lanes: [
    lane("chat", {}),
    lane("email", { events: 20, rate: 0.25, lower95: 0.17, upper95: 0.34, holds: false }),
    lane("phone", {
      certified: false,
      threshold: null,
      neededSelectN: 86,
      verdicts: { pass: 0, fail: 0, answer: 0, escalate: 100, undecided: 0 },
      events: 0,
      trials: 0,
      rate: null,
      lower95: null,
      upper95: null,
      holds: null,
    }),
    lane("web", {
      labelled: 0,
      events: 0,
      trials: 0,
      rate: null,
      lower95: null,
      upper95: null,
      holds: null,
    }),
  ],
};

Deno.test("`policyChecks()` passes where the policy holds, fails where it no longer holds and skips, with the reason, where it was not checked", () => {
  const checks = policyChecks(policy);
  assert.deepEqual(checks.map((c) => [c.name, c.group, c.pass]), [
    ["policy urgent lane chat", "policy.lanes", true],
    ["policy urgent lane email", "policy.lanes", false],
    ["policy urgent lane phone", "policy.lanes", null],
    ["policy urgent lane web", "policy.lanes", null],
  ]);
  assert.match(
    checks[1]?.message ?? "",
    /^lane email under policy urgent\.policy\.json \(false-pass, bar 0\.9\): 10 pass, 90 fail, 0 escalate, 0 undecided; false passes among gold "no" 0\.25 \(20\/80\), one-sided 95% bounds \[0\.17, 0\.34\] against α 0\.05: no longer holds$/,
  );
  assert.match(
    checks[2]?.message ?? "",
    /not checked: not certified \(needs 86\), its cases escalate$/,
  );
  assert.match(checks[3]?.message ?? "", /not checked: no labelled case$/);
});

Deno.test("`policyData()` is one row per lane with the verdicts, the rate and its bounds, and null without a policy", () => {
  assert.equal(policyData(undefined), null);
  const data = policyData(policy);
  assert.ok(data);
  assert.deepEqual(data.broken, ["email"]);
  assert.deepEqual(data.table.rows[1], [
    "email",
    "0.9",
    "10",
    "90",
    "0",
    "0",
    "25.0% (20/80)",
    "17.0%",
    "34.0%",
    "no longer holds",
  ]);
  assert.equal(data.table.rows[2]?.[1], "escalate");
  assert.match(
    data.intro,
    /^urgent\.policy\.json \(sha256 cccccccccccc\) for question urgent: objective false-pass, α 0\.05, δ 0\.05, calibration temperature, chosen on run 20260101-000000-tickets-0000/,
  );
});
