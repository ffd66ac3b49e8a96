import assert from "node:assert/strict";
import type { Case } from "../../dataset/schemas.ts";
import { optionsOf } from "../../dataset/questions.ts";
import { loadDataset } from "../../dataset/mod.ts";
import { oraclePredictor } from "./oracle.ts";

const cases = (await loadDataset({ split: "test" })).cases;
const oracle = oraclePredictor(cases);

function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).reverse().map((
      [k, v],
    ) => [k, reversedKeys(v)]),
  );
}

Deno.test("`oraclePredictor()` answers every test case's gold distributions", () => {
  assert.equal(cases.length, 400);
  for (const item of cases) {
    const distributions = oracle.predict(item.state, item.questions);
    for (const [name, question] of Object.entries(item.questions)) {
      const expected = Object.fromEntries(
        optionsOf(question).map((option) => [option, item.gold[name]!.probabilities[option]]),
      );
      assert.deepEqual(distributions[name], expected, `${item.id}/${name}`);
    }
  }
});

Deno.test("`oraclePredictor()` finds a case whatever the state's key order or encoding", async (t) => {
  const item = cases[123] as Case;
  const expected = oracle.predict(item.state, item.questions);
  await t.step("keys in another order", () => {
    assert.deepEqual(oracle.predict(reversedKeys(item.state), item.questions), expected);
  });
  await t.step("the state sent as JSON text", () => {
    assert.deepEqual(oracle.predict(JSON.stringify(item.state), item.questions), expected);
  });
  await t.step("a subset of the questions", () => {
    const [name, question] = Object.entries(item.questions)[0]!;
    assert.deepEqual(oracle.predict(item.state, { [name]: question }), { [name]: expected[name] });
  });
});

Deno.test("`oraclePredictor()` refuses what it cannot answer", async (t) => {
  const item = cases[0] as Case;
  await t.step("an unknown state", () => {
    assert.throws(
      () => oracle.predict({ made: "up" }, item.questions),
      (error: unknown) =>
        error instanceof RangeError &&
        /knows the Typed Decisions test split's states/.test(error.message),
    );
  });
  await t.step("a question the case does not have", () => {
    assert.throws(
      () => oracle.predict(item.state, { other: { type: "noul", instructions: "?" } }),
      /case "agent_trace_observability_000000" has no question "other"/,
    );
  });
  await t.step("options that differ from the case's", () => {
    assert.throws(
      () =>
        oracle.predict(item.state, {
          action: { type: "choice", instructions: "?", criteria: ["continue", "stop"] },
        }),
      /has options .* the request asks continue, stop/,
    );
  });
});

Deno.test("`oraclePredictor()` answers rows sharing a state per question: agreed gold, else the average", () => {
  const questions = {
    ok: { type: "noul" as const, instructions: "Fine?" },
    team: {
      type: "choice" as const,
      instructions: "Which team?",
      criteria: { a: "A", b: "B" },
    },
  };
  const hard = (label: string, options: string[]) => ({
    type: "noul" as const,
    label,
    probabilities: Object.fromEntries(options.map((o) => [o, o === label ? 1 : 0])),
    confidence: 1,
    noul: 1,
  });
  const row = (id: string, team: string | null): Case => ({
    id,
    workflow: "w",
    state: { text: "same" },
    questions,
    gold: {
      ok: hard("true", ["true", "false"]),
      ...(team === null ? {} : { team: hard(team, ["a", "b"]) }),
    },
  } as unknown as Case);
  const shared = oraclePredictor([row("1", "a"), row("2", "a"), row("3", "b"), row("4", null)]);
  const answer = shared.predict({ text: "same" }, questions);
  assert.deepEqual(answer.ok, { true: 1, false: 0 }, "the rows agree: their gold, one-hot");
  assert.ok(Math.abs(answer.team!.a! - 2 / 3) < 1e-12, JSON.stringify(answer.team));
  assert.ok(Math.abs(answer.team!.b! - 1 / 3) < 1e-12, JSON.stringify(answer.team));
});
