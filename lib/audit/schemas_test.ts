import assert from "node:assert/strict";
import { validateWorkflow } from "../workflow/load.ts";
import { AuditsSpecSchema } from "../workflow/audits_spec.ts";
import { checkName } from "./schemas.ts";

const check = {
  id: "refund-claim-v1",
  set: "recommended",
  evidence: "messages",
  instructions: "Did it claim a refund?",
  options: { claims: "says so", no_claim: "does not say so", unclear: "cannot tell" },
};
const audits = {
  transcripts: "t.jsonl",
  judge: { baseUrl: "http://127.0.0.1:8084" },
  checks: [check],
};

Deno.test("AuditsSpecSchema applies the judge defaults", () => {
  const parsed = AuditsSpecSchema.parse(audits);
  assert.equal(parsed.set, "recommended");
  assert.equal(parsed.judge.apiKeyEnv, "DECIBENCH_JUDGE_API_KEY");
  assert.equal(parsed.judge.model, "default");
  assert.equal(parsed.judge.retries, 2);
});

Deno.test("a workflow's audits field is validated, naming the field", async (t) => {
  const table: [string, unknown, RegExp][] = [
    [
      "id without a version",
      { ...audits, checks: [{ ...check, id: "refund-claim" }] },
      /audits\.checks\.0\.id.*version suffix/,
    ],
    [
      "no unclear option",
      { ...audits, checks: [{ ...check, options: { a: "x", b: "y" } }] },
      /audits\.checks\.0\.options.*"unclear"/,
    ],
    [
      "one real option",
      { ...audits, checks: [{ ...check, options: { a: "x", unclear: "?" } }] },
      /at least two options/,
    ],
    [
      "bad scope",
      { ...audits, checks: [{ ...check, evidence: "everything" }] },
      /audits\.checks\.0\.evidence/,
    ],
    ["bad set", { ...audits, checks: [{ ...check, set: "some" }] }, /audits\.checks\.0\.set/],
    ["two versions of one check", {
      ...audits,
      checks: [check, { ...check, id: "refund-claim-v2" }],
    }, /repeats check "refund-claim"/],
    [
      "judge without URL or reference",
      { ...audits, judge: { model: "m" } },
      /audits\.judge.*baseUrl or reference/,
    ],
    ["judge headers are not a field", {
      ...audits,
      judge: { baseUrl: "http://h", headers: { a: "b" } },
    }, /audits\.judge.*"headers"/],
    [
      "bad key variable",
      { ...audits, judge: { baseUrl: "http://h", apiKeyEnv: "not a name" } },
      /apiKeyEnv/,
    ],
  ];
  for (const [name, value, pattern] of table) {
    await t.step(name, () => {
      assert.throws(
        () =>
          validateWorkflow({ name: "w", endpoint: { baseUrl: "http://h" }, audits: value }, "w.ts"),
        pattern,
      );
    });
  }
});

Deno.test("checkName() drops the version suffix", () => {
  assert.equal(checkName("tc91-revocation-claim-v2"), "tc91-revocation-claim");
  assert.equal(checkName("a-v10"), "a");
});
