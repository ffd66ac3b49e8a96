import assert from "node:assert/strict";
import {
  itemsFromDecisions,
  itemsFromDecisionStream,
  parseLabelledItems,
  parseLabels,
} from "./labelled.ts";

Deno.test("itemsFromDecisions() takes answered noul decisions and excludes errors", () => {
  const base = { case: "c1", workflow: "w", gold: "true", error: null };
  const { items, excluded } = itemsFromDecisions([
    { ...base, question: "q", type: "noul", predicted: { true: 0.8, false: 0.2 } },
    { ...base, question: "pick", type: "choice", predicted: { a: 1, b: 0 } },
    {
      ...base,
      case: "c2",
      question: "q",
      type: "noul",
      predicted: null,
      error: { kind: "timeout", message: "x" },
    },
    {
      ...base,
      case: "c3",
      question: "q",
      type: "noul",
      gold: "false",
      predicted: { true: 0, false: 1 },
    },
  ]);
  assert.deepEqual(items, [
    { id: "c1", lane: "w/q", p_yes: 0.8, label: true },
    { id: "c3", lane: "w/q", p_yes: 0, label: false },
  ]);
  assert.equal(excluded, 1);
});

Deno.test("itemsFromDecisionStream() gives what itemsFromDecisions() gives over the array", async () => {
  const decisions = Array.from({ length: 50 }, (_, i) => ({
    case: `c${i}`,
    workflow: "w",
    question: i % 5 === 0 ? "pick" : "q",
    type: i % 5 === 0 ? "choice" : "noul",
    gold: i % 7 === 0 ? null : i % 2 === 0 ? "true" : "false",
    predicted: i % 11 === 0 ? null : { true: i / 50, false: 1 - i / 50 },
    error: i % 11 === 0 ? { kind: "timeout", message: "x" } : null,
  }));
  const streamed = await itemsFromDecisionStream((async function* () {
    yield* decisions;
  })());
  assert.deepEqual(streamed, { ...itemsFromDecisions(decisions), decisions: 50 });
});

Deno.test("parseLabelledItems() reads {id, lane, p_yes, label} lines", () => {
  const text = [
    '{"id":"a","lane":"x","p_yes":0.9,"label":true}',
    "",
    '{"id":"b","lane":"x","p_yes":0.1,"label":0}',
  ].join("\n");
  assert.deepEqual(parseLabelledItems(text, "l.jsonl").map((i) => i.label), [true, false]);
});

Deno.test("itemsFromDecisionStream() gives what itemsFromDecisions() gives over the array", async () => {
  const decisions = Array.from({ length: 50 }, (_, i) => ({
    case: `c${i}`,
    workflow: "w",
    question: i % 5 === 0 ? "pick" : "q",
    type: i % 5 === 0 ? "choice" : "noul",
    gold: i % 7 === 0 ? null : i % 2 === 0 ? "true" : "false",
    predicted: i % 11 === 0 ? null : { true: i / 50, false: 1 - i / 50 },
    error: i % 11 === 0 ? { kind: "timeout", message: "x" } : null,
  }));
  const streamed = await itemsFromDecisionStream((async function* () {
    yield* decisions;
  })());
  assert.deepEqual(streamed, { ...itemsFromDecisions(decisions), decisions: 50 });
});

Deno.test("parseLabelledItems() names the line and field of a bad item", async (t) => {
  await t.step("p_yes out of range", () =>
    assert.throws(
      () => parseLabelledItems('{"id":"a","lane":"x","p_yes":1.5,"label":true}', "l.jsonl"),
      /line 1 field "p_yes"/,
    ));
  await t.step("label as text", () =>
    assert.throws(
      () => parseLabelledItems('\n{"id":"a","lane":"x","p_yes":0.5,"label":"yes"}', "l.jsonl"),
      /line 2 field "label"/,
    ));
  await t.step(
    "not JSON",
    () => assert.throws(() => parseLabelledItems("{", "l.jsonl"), SyntaxError),
  );
});

Deno.test("parseLabels() reads a gate's gate.jsonl: undecided and unlabelled verdicts counted and left out", () => {
  const gate = (id: string, p: number | null, label: boolean | null) =>
    JSON.stringify({
      id,
      lane: "chat",
      p_yes: p,
      verdict: p === null ? "undecided" : p >= 0.7 ? "pass" : "fail",
      label,
      error: null,
      provenance: { kind: "atomic-decision", threshold: 0.7, calibrated: false },
    });
  const text = [
    gate("a", 0.9, true),
    gate("b", null, false),
    gate("c", 0.2, null),
    gate("d", 0.3, false),
  ]
    .join("\n");
  const read = parseLabels(text, "gate.jsonl");
  assert.deepEqual(read.items, [
    { id: "a", lane: "chat", p_yes: 0.9, label: true },
    { id: "d", lane: "chat", p_yes: 0.3, label: false },
  ]);
  assert.equal(read.excluded, 1);
  assert.equal(read.unlabelled, 1);
});
