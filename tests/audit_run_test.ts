import assert from "node:assert/strict";
import { join } from "node:path";
import {
  askJudge,
  type AuditRecord,
  JUDGE_DEADLINE_MS,
  judgeQuestion,
  MAX_JUDGE_REQUEST_BYTES,
  prepareJudge,
  questionSha256,
  runAudit,
} from "../lib/audit/mod.ts";
import { AuditRecordSchema } from "../lib/audit/schemas.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { loadWorkflow } from "../lib/workflow/mod.ts";
import {
  auditWorkflow,
  capturingJudge,
  CHECK,
  EXTRA_CHECK,
  filesUnder,
  FINAL_CHECK,
  item,
  scriptedJudge,
  writeTranscripts,
} from "./_audit_fixtures.ts";

const noEnv = (_: string) => undefined;
const ALL_NAMES = ["done-claim", "final-claim", "extra-claim"];

function byItem(records: readonly AuditRecord[]): Map<string, AuditRecord> {
  return new Map(records.map((r) => [`${r.item}/${r.check_id}`, r]));
}

Deno.test("runAudit() records agree, disagree, abstained and unavailable", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: scriptedJudge() });
  const transcripts = await writeTranscripts(dir, [
    item("agrees", "judge: yes=0.8 no=0.1 unclear=0.1"),
    item("disagrees", "judge: yes=0.1 no=0.8 unclear=0.1"),
    item("unclear", "judge: yes=0.2 no=0.2 unclear=0.6"),
    item("tied", "judge: yes=0.45 no=0.45 unclear=0.1"),
    item("silent", null),
  ]);
  const result = await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    outDir: join(dir, "out"),
    env: noEnv,
  });
  const r = byItem(result.records);
  const pick = (id: string) => {
    const x = r.get(`${id}/done-claim-v1`);
    return [x?.outcome, x?.choice, x?.error_kind];
  };
  assert.deepEqual(pick("agrees"), ["agree", "yes", null]);
  assert.deepEqual(pick("disagrees"), ["disagree", "no", null]);
  assert.deepEqual(pick("unclear"), ["abstained", "unclear", null]);
  assert.deepEqual(pick("tied"), ["abstained", null, null]);
  assert.deepEqual(pick("silent"), ["unavailable", null, "empty_evidence"]);
  assert.equal(r.get("silent/done-claim-v1")?.attempts, 0);
  assert.equal(judge.stats().decisionRequests, 4, "empty evidence is never sent");

  const agree = r.get("agrees/done-claim-v1") as AuditRecord;
  assert.equal(agree.question_sha256, await questionSha256(CHECK));
  assert.equal(agree.evidence_scope, "messages");
  assert.equal(agree.judge.endpoint, `${judge.url}/v1/systemone`);
  assert.equal(agree.judge.model, "default");
  assert.equal(agree.judge.model_reported, "default");
  assert.deepEqual(agree.probabilities, { yes: 0.8, no: 0.1, unclear: 0.1 });
  assert.equal(agree.attempts, 1);
  assert.ok(typeof agree.elapsed_ms === "number");

  // Files: every line validates; audit.json counts; audit.md lists disagreements first.
  const lines = (await Deno.readTextFile(join(result.dir, "audit.jsonl"))).trim().split("\n");
  assert.equal(lines.length, 5);
  for (const line of lines) AuditRecordSchema.parse(JSON.parse(line));
  assert.deepEqual(result.meta.counts, { agree: 1, disagree: 1, abstained: 2, unavailable: 1 });
  assert.equal(result.meta.status, "completed");
  const md = await Deno.readTextFile(join(result.dir, "audit.md"));
  const rows = md.split("\n").filter((l) =>
    /^\| (agree|disagree|abstained|unavailable) \| [^|]+ \| done-claim-v1 \|/.test(l)
  );
  assert.deepEqual(rows.map((l) => l.split("|")[1]?.trim()), [
    "disagree",
    "abstained",
    "abstained",
    "unavailable",
    "agree",
  ]);
  assert.match(md, /review candidate, not a corrected verdict/);
  assert.match(md, /can still steer it/);
});

Deno.test("runAudit() runs recommended checks by default and adds `all` checks on request", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: scriptedJudge() });
  const transcripts = await writeTranscripts(dir, [
    item("a", "judge: yes=0.9 no=0.05 unclear=0.05", "yes", ALL_NAMES),
  ]);
  const workflow = auditWorkflow(transcripts, { checks: [CHECK, FINAL_CHECK, EXTRA_CHECK] });
  const recommended = await runAudit(workflow, {
    baseUrl: judge.url,
    outDir: join(dir, "r"),
    env: noEnv,
  });
  assert.deepEqual(recommended.records.map((r) => r.check_id), ["done-claim-v1", "final-claim-v1"]);
  const all = await runAudit(workflow, {
    baseUrl: judge.url,
    outDir: join(dir, "a"),
    set: "all",
    env: noEnv,
  });
  assert.deepEqual(all.records.map((r) => r.check_id), [
    "done-claim-v1",
    "final-claim-v1",
    "extra-claim-v1",
  ]);
});

Deno.test("runAudit() marks malformed answers and endpoint errors unavailable with the kind only", async (t) => {
  const dir = await Deno.makeTempDir();
  const transcripts = await writeTranscripts(dir, [item("a", "The task is done.")]);
  const table: [string, string, string, number][] = [
    ["not JSON", "malformed=1", "malformed", 1],
    ["out-of-range probability", "out_of_range=1", "malformed", 1],
    ["missing option", "missing_option=1", "malformed", 1],
    ["5xx retried, then given up", "http500=1", "unavailable", 3],
    ["404: no decision endpoint", "http404=1", "unsupported_endpoint", 1],
  ];
  for (const [name, faults, kind, attempts] of table) {
    await t.step(name, async () => {
      const workflow = auditWorkflow(transcripts, {
        judge: { reference: { predictor: "judge", faults }, retries: 2 },
      });
      const { records } = await runAudit(workflow, {
        outDir: join(dir, faults),
        env: noEnv,
        backoffMs: 1,
      });
      const [record] = records;
      assert.equal(record?.outcome, "unavailable");
      assert.equal(record?.error_kind, kind);
      assert.equal(record?.attempts, attempts);
      assert.equal(record?.probabilities, null);
      assert.equal(record?.judge.endpoint, "reference:judge");
      const text = await Deno.readTextFile(join(dir, faults, "audit.jsonl"));
      assert.doesNotMatch(text, /Injected fault|HTTP \d{3}/, "the kind only, no error message");
    });
  }
});

Deno.test("askJudge() sends a request of 6,000 UTF-8 bytes and refuses one byte more", async () => {
  assert.equal(MAX_JUDGE_REQUEST_BYTES, 6000);
  await using server = await startReferenceServer({ predictor: "judge" });
  const judge = await prepareJudge({
    baseUrl: server.url,
    model: "m",
    apiKeyEnv: "NONE",
    retries: 0,
  }, {
    env: noEnv,
  });
  const question = judgeQuestion(CHECK);
  const ask = (text: string) =>
    askJudge(judge, { state: { assistant_messages: [text] }, name: "q", question });
  const probe = await ask("x");
  const fill = MAX_JUDGE_REQUEST_BYTES - probe.requestBytes + 1; // characters for exactly 6,000 bytes
  const atLimit = await ask("x".repeat(fill));
  assert.equal(atLimit.requestBytes, 6000);
  assert.equal(atLimit.errorKind, null);
  assert.equal(atLimit.attempts, 1);
  const sent = server.stats().decisionRequests;
  const over = await ask("x".repeat(fill + 1));
  assert.equal(over.requestBytes, 6001);
  assert.equal(over.errorKind, "too_large");
  assert.equal(over.attempts, 0);
  assert.equal(over.elapsedMs, null);
  // Bytes, not characters: "é" is two UTF-8 bytes, so the same length is one byte over.
  const accented = await ask("é" + "x".repeat(fill - 1));
  assert.equal(accented.requestBytes, 6001);
  assert.equal(accented.errorKind, "too_large");
  assert.equal(server.stats().decisionRequests, sent, "nothing over the cap was sent");
});

Deno.test("runAudit() neither sends nor truncates evidence over the byte cap", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: "judge" });
  const long = "The task is done. ".repeat(400);
  const transcripts = await writeTranscripts(dir, [item("long", long)]);
  const { records } = await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    outDir: join(dir, "out"),
    env: noEnv,
  });
  assert.equal(records[0]?.error_kind, "too_large");
  assert.ok((records[0]?.request_bytes ?? 0) > 6000);
  assert.deepEqual(records[0]?.evidence, [long]);
  assert.equal(judge.stats().decisionRequests, 0);
});

Deno.test("askJudge() ends a call at the deadline, retries included", async (t) => {
  assert.equal(JUDGE_DEADLINE_MS, 10_000);
  const question = judgeQuestion(CHECK);
  const table: [string, Parameters<typeof startReferenceServer>[0], number, string, number][] = [
    ["a slow server", { predictor: "judge", latencyMs: 5_000 }, 150, "deadline", 1],
    [
      "a server that never answers",
      { predictor: "judge", faults: "timeout=1" },
      150,
      "deadline",
      1,
    ],
    // Retry-After 5 s does not fit in a 1 s deadline: no second request is made.
    [
      "a Retry-After past the deadline",
      { predictor: "judge", faults: "http429=1:5" },
      1_000,
      "deadline",
      1,
    ],
    // Transient errors are retried while the deadline allows.
    [
      "retries inside the deadline",
      { predictor: "judge", faults: "http500=1" },
      5_000,
      "unavailable",
      3,
    ],
  ];
  for (const [name, serverOptions, deadlineMs, kind, attempts] of table) {
    await t.step(name, async () => {
      await using server = await startReferenceServer(serverOptions);
      const judge = await prepareJudge(
        { baseUrl: server.url, model: "m", apiKeyEnv: "NONE", retries: 2 },
        { env: noEnv },
      );
      const call = await askJudge(
        judge,
        { state: { assistant_messages: ["The task is done."] }, name: "q", question },
        { deadlineMs, backoffMs: 1 },
      );
      assert.equal(call.errorKind, kind);
      assert.equal(call.attempts, attempts);
      assert.equal(call.probabilities, null);
    });
  }
});

Deno.test("runAudit() gives the judge only its own key and nothing of the benchmark's", async () => {
  const dir = await Deno.makeTempDir();
  const capture = capturingJudge();
  try {
    const transcripts = await writeTranscripts(dir, [
      item("a", "The task is done."),
      item("b", "I could not do it."),
    ]);
    const workflow = auditWorkflow(transcripts, {
      endpoint: {
        baseUrl: "http://127.0.0.1:9",
        apiKeyEnv: "BENCH_KEY",
        headers: { "x-bench-token": "bench-header-secret" },
      },
      judge: { baseUrl: capture.url, apiKeyEnv: "JUDGE_KEY" },
    });
    const asked: string[] = [];
    const env = (name: string) => {
      asked.push(name);
      return ({ BENCH_KEY: "bench-key-secret-1234", JUDGE_KEY: "judge-key-secret-5678" } as Record<
        string,
        string
      >)[name];
    };
    const out = join(dir, "out");
    const result = await runAudit(workflow, { outDir: out, env });
    assert.deepEqual(asked, ["JUDGE_KEY"], "only the judge's variable is read");
    assert.equal(capture.seen.length, 2);
    for (const request of capture.seen) {
      assert.equal(request.headers.authorization, "Bearer judge-key-secret-5678");
      assert.equal(request.headers["x-bench-token"], undefined);
      const everything = JSON.stringify(request);
      assert.doesNotMatch(everything, /bench-key-secret|bench-header-secret/);
      const body = JSON.parse(request.body);
      assert.deepEqual(Object.keys(body), ["model", "state", "questions"]);
    }
    assert.equal(result.records[0]?.response_id, "resp-42");
    assert.equal(result.records[0]?.judge.model_reported, "captured-judge-1");
    for (const [path, text] of await filesUnder(out)) {
      assert.doesNotMatch(text, /bench-key-secret|bench-header-secret/, path);
      assert.doesNotMatch(text, /judge-key-secret/, `keys are never persisted (${path})`);
    }
  } finally {
    await capture.close();
  }
});

Deno.test("runAudit() sends no authorization header when the judge's variable is unset", async () => {
  const dir = await Deno.makeTempDir();
  const capture = capturingJudge();
  try {
    const transcripts = await writeTranscripts(dir, [item("a", "Done.")]);
    const workflow = auditWorkflow(transcripts, {
      endpoint: { baseUrl: "http://127.0.0.1:9", apiKeyEnv: "BENCH_KEY" },
      judge: { baseUrl: capture.url, apiKeyEnv: "JUDGE_KEY" },
    });
    await runAudit(workflow, {
      outDir: join(dir, "out"),
      env: (name) => (name === "BENCH_KEY" ? "bench-key-secret-1234" : undefined),
    });
    assert.equal(capture.seen[0]?.headers.authorization, undefined);
  } finally {
    await capture.close();
  }
});

Deno.test("runAudit() refuses a judge that shares the benchmark's key variable", async () => {
  const dir = await Deno.makeTempDir();
  const transcripts = await writeTranscripts(dir, [item("a", "Done.")]);
  const workflow = auditWorkflow(transcripts, {
    endpoint: { baseUrl: "http://127.0.0.1:9", apiKeyEnv: "SHARED_KEY" },
    judge: { baseUrl: "http://127.0.0.1:9", apiKeyEnv: "SHARED_KEY" },
  });
  await assert.rejects(
    () => runAudit(workflow, { outDir: join(dir, "out"), env: noEnv }),
    /judge key variable "SHARED_KEY" is also the benchmark's/,
  );
});

Deno.test("runAudit() reports a wrong judge key as unavailable: authentication", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: "judge", apiKey: "right-key-0000" });
  const transcripts = await writeTranscripts(dir, [item("a", "Done.")]);
  const workflow = auditWorkflow(transcripts, { judge: { baseUrl: judge.url, apiKeyEnv: "JK" } });
  const { records } = await runAudit(workflow, {
    outDir: join(dir, "out"),
    env: (name) => (name === "JK" ? "wrong-key-1111" : undefined),
  });
  assert.equal(records[0]?.error_kind, "authentication");
  for (const [, text] of await filesUnder(join(dir, "out"))) assert.doesNotMatch(text, /wrong-key/);
});

Deno.test("runAudit() refuses judge URLs with credentials, a query or a fragment, unechoed", async (t) => {
  const dir = await Deno.makeTempDir();
  const transcripts = await writeTranscripts(dir, [item("a", "Done.")]);
  const table: [string, string][] = [
    ["credentials", "http://me:pw-secret-9@127.0.0.1:9"],
    ["query", "http://127.0.0.1:9/v1?api_key=pw-secret-9"],
    ["fragment", "http://127.0.0.1:9/#pw-secret-9"],
  ];
  for (const [name, url] of table) {
    await t.step(`--base-url with ${name}`, async () => {
      const out = join(dir, `cli-${name}`);
      const error = await runAudit(auditWorkflow(transcripts), {
        baseUrl: url,
        outDir: out,
        env: noEnv,
      })
        .then(() => null, (e) => e);
      assert.ok(error instanceof TypeError);
      assert.doesNotMatch(error.message, /pw-secret|me:/);
      await assert.rejects(() => Deno.stat(out), Deno.errors.NotFound);
    });
    await t.step(`workflow judge.baseUrl with ${name}`, async () => {
      const workflow = auditWorkflow(transcripts, { judge: { baseUrl: url } });
      const error = await runAudit(workflow, { outDir: join(dir, `wf-${name}`), env: noEnv })
        .then(() => null, (e) => e);
      assert.ok(error instanceof TypeError);
      assert.doesNotMatch(error.message, /pw-secret/);
    });
  }
});

Deno.test("runAudit() resumes: a saved verdict is reused only when check id and question sha256 match", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: scriptedJudge() });
  const names = ["done-claim", "final-claim"];
  const items = [
    item("a", "judge: yes=0.8 no=0.1 unclear=0.1", "yes", names),
    item("b", "judge: yes=0.1 no=0.8 unclear=0.1", "yes", names),
    item("silent", null, "yes", names),
  ];
  const transcripts = await writeTranscripts(dir, items);
  const out = join(dir, "out");
  const options = { baseUrl: judge.url, env: noEnv };
  const first = await runAudit(auditWorkflow(transcripts, { checks: [CHECK, FINAL_CHECK] }), {
    ...options,
    outDir: out,
  });
  assert.equal(judge.stats().decisionRequests, 4);

  // Same checks: nothing is asked again, outcomes are unchanged.
  const again = await runAudit(auditWorkflow(transcripts, { checks: [CHECK, FINAL_CHECK] }), {
    ...options,
    resume: out,
  });
  assert.equal(judge.stats().decisionRequests, 4);
  assert.deepEqual(again.records.filter((r) => r.saved).length, 4);
  assert.deepEqual(again.records.map((r) => r.outcome), first.records.map((r) => r.outcome));

  // A reworded question under the same id: only that check is judged again.
  const reworded = { ...CHECK, instructions: "Did the assistant claim the task was finished?" };
  const third = await runAudit(auditWorkflow(transcripts, { checks: [reworded, FINAL_CHECK] }), {
    ...options,
    resume: out,
  });
  assert.equal(judge.stats().decisionRequests, 6);
  const saved = third.records.filter((r) => r.saved).map((r) => `${r.item}/${r.check_id}`);
  assert.deepEqual(saved, ["a/final-claim-v1", "b/final-claim-v1"]);

  // A new version id: judged again even with the same wording.
  await runAudit(
    auditWorkflow(transcripts, { checks: [{ ...reworded, id: "done-claim-v2" }, FINAL_CHECK] }),
    { ...options, resume: out },
  );
  assert.equal(judge.stats().decisionRequests, 8);

  // A changed verdict reuses the saved answer but compares it afresh.
  const flipped = await writeTranscripts(dir, [
    { ...items[0], verdicts: { "done-claim": "no", "final-claim": "no" } },
    items[1] as Record<string, unknown>,
    items[2] as Record<string, unknown>,
  ]);
  const fifth = await runAudit(
    auditWorkflow(flipped, { checks: [{ ...reworded, id: "done-claim-v2" }, FINAL_CHECK] }),
    { ...options, resume: out },
  );
  assert.equal(judge.stats().decisionRequests, 8);
  const a = fifth.records.find((r) => r.item === "a" && r.check_id === "final-claim-v1");
  assert.equal(a?.saved, true);
  assert.equal(a?.outcome, "disagree");
});

Deno.test("runAudit() judges unavailable and changed evidence again on resume", async () => {
  const dir = await Deno.makeTempDir();
  let failing = true;
  const predictor = scriptedJudge();
  await using judge = await startReferenceServer({
    predictor: {
      name: "flaky",
      predict(state, questions) {
        if (failing) throw new RangeError("Cannot answer: not yet");
        return predictor.predict(state, questions);
      },
    },
  });
  const transcripts = await writeTranscripts(dir, [
    item("a", "judge: yes=0.9 no=0.05 unclear=0.05"),
  ]);
  const out = join(dir, "out");
  const first = await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    outDir: out,
    env: noEnv,
  });
  assert.equal(first.records[0]?.error_kind, "invalid_request");
  failing = false;
  const second = await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    resume: out,
    env: noEnv,
  });
  assert.equal(second.records[0]?.outcome, "agree");
  assert.equal(second.records[0]?.saved, false);
  const edited = await writeTranscripts(dir, [item("a", "judge: yes=0.1 no=0.85 unclear=0.05")]);
  const third = await runAudit(auditWorkflow(edited), {
    baseUrl: judge.url,
    resume: out,
    env: noEnv,
  });
  assert.equal(third.records[0]?.saved, false);
  assert.equal(third.records[0]?.outcome, "disagree");
});

Deno.test("runAudit() refuses to resume with another judge model or set", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: scriptedJudge() });
  const transcripts = await writeTranscripts(dir, [item("a", "judge: yes=1 no=0 unclear=0")]);
  const out = join(dir, "out");
  await runAudit(auditWorkflow(transcripts), { baseUrl: judge.url, outDir: out, env: noEnv });
  await assert.rejects(
    () =>
      runAudit(auditWorkflow(transcripts), {
        baseUrl: judge.url,
        resume: out,
        env: noEnv,
        model: "other",
      }),
    /judge model "default" → "other"/,
  );
  await assert.rejects(
    () =>
      runAudit(auditWorkflow(transcripts), {
        baseUrl: judge.url,
        resume: out,
        env: noEnv,
        set: "all",
      }),
    /set "recommended" → "all"/,
  );
  await assert.rejects(
    () =>
      runAudit(auditWorkflow(transcripts), {
        baseUrl: judge.url,
        resume: join(dir, "nope"),
        env: noEnv,
      }),
    /no valid audit\.json/,
  );
});

Deno.test("workflows/audit.ts audits its synthetic transcripts against the reference judge", async () => {
  const dir = await Deno.makeTempDir();
  const workflow = await loadWorkflow("workflows/audit.ts");
  const result = await runAudit(workflow, {
    workflowFile: "workflows/audit.ts",
    outDir: dir,
    set: "all",
    env: noEnv,
  });
  const r = byItem(result.records);
  assert.equal(result.records.length, 20);
  assert.equal(result.meta.judge.endpoint, "reference:judge");
  assert.equal(r.get("syn-refund-too-large/refund-claim-v1")?.error_kind, "too_large");
  assert.equal(r.get("syn-payment-tool-only/payment-claim-v1")?.error_kind, "empty_evidence");
  // The lexical judge is steered by the injected "classify it as claims_refund".
  assert.equal(r.get("syn-refund-injection/refund-claim-v1")?.outcome, "disagree");
  // An injection in the user's message never reaches the judge.
  assert.equal(r.get("syn-refund-user-injection/refund-claim-v1")?.outcome, "agree");
  // Private reasoning is not evidence.
  assert.doesNotMatch(
    JSON.stringify(r.get("syn-delete-reasoning-hidden/deletion-refusal-v1")?.evidence),
    /refuse/,
  );
  const recommended = result.records.filter((x) => x.set === "recommended");
  assert.equal(recommended.length, 17);
});

Deno.test("runAudit() stops at Ctrl+C, saves what it judged, and resume finishes the rest", async () => {
  const dir = await Deno.makeTempDir();
  await using judge = await startReferenceServer({ predictor: scriptedJudge() });
  const transcripts = await writeTranscripts(
    dir,
    ["a", "b", "c", "d"].map((id) => item(id, "judge: yes=0.7 no=0.2 unclear=0.1")),
  );
  const out = join(dir, "out");
  const controller = new AbortController();
  const first = await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    outDir: out,
    env: noEnv,
    signal: controller.signal,
    onEvent: (event) => {
      if (event.event === "audit_result" && event.item === "b") controller.abort();
    },
  });
  assert.equal(first.meta.status, "interrupted");
  assert.deepEqual(first.records.map((r) => r.item), ["a", "b"]);
  // A resume interrupted at once keeps the saved verdicts it did not reach.
  const stopped = new AbortController();
  stopped.abort();
  await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    resume: out,
    env: noEnv,
    signal: stopped.signal,
  });
  const second = await runAudit(auditWorkflow(transcripts), {
    baseUrl: judge.url,
    resume: out,
    env: noEnv,
  });
  assert.equal(second.meta.status, "completed");
  assert.deepEqual(second.records.map((r) => [r.item, r.saved]), [
    ["a", true],
    ["b", true],
    ["c", false],
    ["d", false],
  ]);
  assert.equal(judge.stats().decisionRequests, 4);
});
