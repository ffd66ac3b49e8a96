import assert from "node:assert/strict";
import { decisionGate, DEFAULT_GATE_THRESHOLD } from "../lib/audit/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";

/** A predictor that answers P(yes) = the state's `p`. */
const byState = {
  name: "by-state",
  predict(state: unknown, questions: Record<string, unknown>) {
    const p = (state as { p: number }).p;
    return Object.fromEntries(Object.keys(questions).map((q) => [q, { true: p, false: 1 - p }]));
  },
};

Deno.test("decisionGate() passes at P(yes) ≥ 0.70 by default, with the score as returned", async () => {
  assert.equal(DEFAULT_GATE_THRESHOLD, 0.7);
  await using server = await startReferenceServer({ predictor: byState });
  const results = await decisionGate({ baseUrl: server.url, model: "gate-model" }, [
    { id: "high", state: { p: 0.93 }, instructions: "Is this safe to auto-approve?" },
    { id: "at-bar", state: { p: 0.7 }, instructions: "Is this safe to auto-approve?" },
    { id: "below", state: { p: 0.69 }, instructions: "Is this safe to auto-approve?" },
  ]);
  assert.deepEqual(results.map((r) => [r.id, r.status, r.score, r.passed]), [
    ["high", "pass", 0.93, true],
    ["at-bar", "pass", 0.7, true],
    ["below", "fail", 0.69, false],
  ]);
  for (const r of results) {
    assert.equal(r.confidence, null, "no confidence is manufactured");
    assert.equal(r.threshold, 0.7);
    assert.equal(r.thresholdCalibrated, false, "the default bar is marked uncalibrated");
    assert.equal(r.provenance.kind, "atomic-decision");
    assert.equal(r.provenance.model, "gate-model");
    assert.equal(r.provenance.cost, null, "cost is never estimated");
    assert.equal(r.error, null);
  }
});

Deno.test("decisionGate() leaves an item undecided on error — never a 0, never a pass", async (t) => {
  const table: [string, string, string][] = [
    ["server error after retries", "http500=1", "unavailable"],
    ["malformed answer", "out_of_range=1", "malformed"],
    ["no decision endpoint", "http404=1", "unsupported_endpoint"],
  ];
  for (const [name, faults, kind] of table) {
    await t.step(name, async () => {
      await using server = await startReferenceServer({ predictor: byState, faults });
      const [r] = await decisionGate({ baseUrl: server.url }, [
        { id: "x", state: { p: 0.99 }, instructions: "Approve?" },
      ], { threshold: 0, retries: 1, backoffMs: 1 });
      assert.equal(r?.status, "undecided");
      assert.equal(r?.score, null);
      assert.equal(r?.passed, null);
      assert.equal(r?.error?.kind, kind);
    });
  }
});

Deno.test("decisionGate() records the provider's model, response id and reported cost", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json();
    assert.deepEqual(Object.keys(body.questions), ["decision"]);
    assert.equal(body.questions.decision.type, "noul");
    assert.deepEqual(body.questions.decision.criteria, { true: "safe", false: "unsafe" });
    return Response.json({
      model: "jev-1.13.0",
      id: "gen-123",
      provider: "TypeSafe",
      answers: { decision: { type: "noul", noul: 0.8312 } },
      usage: { input_tokens: 20, output_tokens: 0, cost: 0.00021 },
    });
  });
  try {
    const [r] = await decisionGate(
      {
        baseUrl: `http://127.0.0.1:${server.addr.port}`,
        model: "jev-latest",
        apiKey: "gate-key-xyz",
      },
      [{
        id: "x",
        state: "text",
        instructions: "Safe?",
        criteria: { true: "safe", false: "unsafe" },
      }],
      { threshold: 0.9, thresholdCalibrated: true },
    );
    assert.equal(r?.score, 0.8312);
    assert.equal(r?.status, "fail");
    assert.equal(r?.thresholdCalibrated, true);
    assert.deepEqual(r?.provenance, {
      kind: "atomic-decision",
      model: "jev-1.13.0",
      responseId: "gen-123",
      cost: 0.00021,
      endpoint: `http://127.0.0.1:${server.addr.port}/v1/systemone`,
    });
  } finally {
    await server.shutdown();
  }
});

Deno.test("decisionGate() refuses a threshold outside [0, 1]", async () => {
  await assert.rejects(
    () => decisionGate({ baseUrl: "http://127.0.0.1:9" }, [], { threshold: 1.2 }),
    RangeError,
  );
});
