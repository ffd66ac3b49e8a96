import assert from "node:assert/strict";
import { record, runJson, spec } from "../../tests/records_fixtures.ts";
import { flips, incomparable } from "./compare.ts";

Deno.test("`incomparable()` compares who answered, refusing runs that asked different things", () => {
  const a = runJson([record()], { id: "a" });
  const other = (over: Parameters<typeof spec>[0]) =>
    runJson([record()], { id: "b", spec: spec(over) });
  assert.equal(incomparable(a, other({ model: "another", fingerprint: "ffff" })), null);
  assert.match(incomparable(a, a) ?? "", /both sides are run "a"/);
  assert.match(
    incomparable(a, other({ revision: "0".repeat(40) })) ?? "",
    /different datasets or revisions/,
  );
  assert.match(incomparable(a, other({ split: "train" })) ?? "", /different splits/);
  assert.match(
    incomparable(a, other({ questions_sha256: "f".repeat(64) })) ?? "",
    /different questions/,
  );
});

Deno.test("`flips()` lists shared decisions right in one run and not the other, in A's order", () => {
  const a = [
    record({ case: "c1", question: "q1", correct: true }),
    record({ case: "c1", question: "q2", correct: false }),
    record({ case: "c2", question: "q1", correct: true }),
    record({ case: "c9", question: "q1", correct: true }),
  ];
  const b = [
    record({ case: "c2", question: "q1", correct: true }),
    record({ case: "c1", question: "q2", correct: true }),
    record({ case: "c1", question: "q1", correct: false }),
  ];
  assert.deepEqual(
    flips(a, b).map((f) => [f.case, f.question, f.right]),
    [["c1", "q1", "a"], ["c1", "q2", "b"]],
  );
});
