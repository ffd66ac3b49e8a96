import assert from "node:assert/strict";
import type { AuditCheck } from "./schemas.ts";
import { checkVerdicts, parseTranscripts, readTranscripts } from "./transcripts.ts";

const line = (value: unknown) => JSON.stringify(value);
const good = {
  id: "t1",
  messages: [{ role: "assistant", content: "Done." }],
  verdicts: { "done-claim": "claims" },
};
const check: AuditCheck = {
  id: "done-claim-v3",
  set: "recommended",
  evidence: "messages",
  instructions: "Did it claim it was done?",
  options: { claims: "says done", no_claim: "does not say done", unclear: "cannot tell" },
};

Deno.test("parseTranscripts() reads JSONL and skips blank lines", () => {
  const items = parseTranscripts(`${line(good)}\n\n${line({ ...good, id: "t2" })}\n`, "f.jsonl");
  assert.deepEqual(items.map((i) => i.id), ["t1", "t2"]);
});

Deno.test("parseTranscripts() names the line and field of a bad item", async (t) => {
  const table: [string, string, RegExp][] = [
    ["not JSON", "{oops", /line 1 is not JSON/],
    [
      "bad role",
      line({ ...good, messages: [{ role: "bot", content: "x" }] }),
      /line 1 field "messages\.0\.role"/,
    ],
    ["unknown field", line({ ...good, extra: 1 }), /line 1 field "\(line\)"|extra/],
    ["missing verdicts", line({ id: "x", messages: [] }), /field "verdicts"/],
    ["repeated id", `${line(good)}\n${line(good)}`, /line 2 repeats id "t1"/],
  ];
  for (const [name, text, pattern] of table) {
    await t.step(name, () => assert.throws(() => parseTranscripts(text, "f.jsonl"), pattern));
  }
});

Deno.test("checkVerdicts() keys verdicts by check name and checks the option", async (t) => {
  await t.step("a verdict for the check's name is accepted", () => {
    checkVerdicts(parseTranscripts(line(good), "f"), [check], { file: "f" });
  });
  await t.step("an unknown check name is refused", () => {
    const items = parseTranscripts(line({ ...good, verdicts: { "done-claim-v3": "claims" } }), "f");
    assert.throws(
      () => checkVerdicts(items, [check], { file: "f" }),
      /names no check.*"done-claim"/,
    );
  });
  await t.step("a verdict that is not an option is refused", () => {
    const items = parseTranscripts(line({ ...good, verdicts: { "done-claim": "maybe" } }), "f");
    assert.throws(
      () => checkVerdicts(items, [check], { file: "f" }),
      /"maybe".*not one of "claims", "no_claim"/,
    );
  });
  await t.step("unclear is never a deterministic verdict", () => {
    const items = parseTranscripts(line({ ...good, verdicts: { "done-claim": "unclear" } }), "f");
    assert.throws(() => checkVerdicts(items, [check], { file: "f" }), TypeError);
  });
  await t.step("an inherited property name is not an option", () => {
    const items = parseTranscripts(
      line({ ...good, verdicts: { "done-claim": "constructor" } }),
      "f",
    );
    assert.throws(() => checkVerdicts(items, [check], { file: "f" }), TypeError);
  });
});

Deno.test("readTranscripts() names a missing file", async () => {
  await assert.rejects(() => readTranscripts("/nonexistent/t.jsonl"), /file not found/);
});
