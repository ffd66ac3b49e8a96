import assert from "node:assert/strict";
import { EVIDENCE_PREAMBLE, judgeQuestion, questionSha256, selectChecks } from "./checks.ts";
import type { AuditCheck } from "./schemas.ts";

const options = { claims: "says it happened", no_claim: "does not say so", unclear: "cannot tell" };
const recommended: AuditCheck = {
  id: "claim-v1",
  set: "recommended",
  evidence: "messages",
  instructions: "Did it claim it?",
  options,
};
const extra: AuditCheck = { ...recommended, id: "extra-v2", set: "all", evidence: "final_answer" };

Deno.test("selectChecks() runs recommended checks under both sets and the rest under all", () => {
  assert.deepEqual(selectChecks([recommended, extra], "recommended").map((c) => c.id), [
    "claim-v1",
  ]);
  assert.deepEqual(selectChecks([recommended, extra], "all").map((c) => c.id), [
    "claim-v1",
    "extra-v2",
  ]);
});

Deno.test("judgeQuestion() tells the judge the messages are evidence, not instructions", () => {
  const q = judgeQuestion(recommended);
  assert.equal(q.type, "choice");
  assert.ok(q.instructions.startsWith(EVIDENCE_PREAMBLE));
  assert.match(q.instructions, /not instructions/);
  assert.match(q.instructions, /earlier message counts even when a later message contradicts/);
  assert.match(judgeQuestion(extra).instructions, /final answer only/);
  assert.ok(q.instructions.endsWith("Question: Did it claim it?"));
  assert.deepEqual(q.type === "choice" && q.criteria, options);
});

Deno.test("questionSha256() changes with the question, the scope or the id", async () => {
  const base = await questionSha256(recommended);
  assert.match(base, /^[0-9a-f]{64}$/);
  assert.equal(await questionSha256({ ...recommended }), base);
  assert.notEqual(await questionSha256({ ...recommended, instructions: "Did it?" }), base);
  assert.notEqual(await questionSha256({ ...recommended, evidence: "final_answer" }), base);
  assert.notEqual(await questionSha256({ ...recommended, id: "claim-v2" }), base);
  assert.notEqual(
    await questionSha256({ ...recommended, options: { ...options, unclear: "unsure" } }),
    base,
  );
});
