import assert from "node:assert/strict";
import { join } from "node:path";
import { readDecisions, RunRecorder } from "../lib/record/mod.ts";
import type { DecisionRecord } from "../lib/record/mod.ts";
import { errored, record } from "./records_fixtures.ts";

/** The case's decisions: question q1 … qn, with a note of non-ASCII text to encode. */
function caseRecords(id: string, n: number): DecisionRecord[] {
  return Array.from(
    { length: n },
    (_, i) =>
      record({ case: id, question: `q${i + 1}`, workflow: `flöw ${id}`, latency_ms: 10 + i / 3 }),
  );
}

const lines = (records: readonly DecisionRecord[]) =>
  records.map((r) => JSON.stringify(r) + "\n").join("");

Deno.test("`RunRecorder.rewriteDecisions()` writes the records in the order given, the same bytes as serialising them, whether they were appended or not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const recorder = new RunRecorder(dir);
    // A resumed run: the kept case is rewritten before the file is opened for appending.
    const kept = caseRecords("kept", 2);
    await recorder.rewriteDecisions(kept);
    await recorder.open();
    const a = caseRecords("a", 5);
    const b = caseRecords("b", 3);
    const c = [errored({ case: "c", question: "q1" })];
    // Answered out of order (parallel requests).
    await recorder.append(b);
    await recorder.append(c);
    await recorder.append(a);
    assert.equal(
      await Deno.readTextFile(recorder.decisionsPath),
      lines([...kept, ...b, ...c, ...a]),
      "appended as answered",
    );
    const final = [...kept, ...a, ...b, ...c];
    await recorder.rewriteDecisions(final);
    assert.equal(await Deno.readTextFile(recorder.decisionsPath), lines(final));
    assert.deepEqual(await readDecisions(recorder.decisionsPath), final);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`RunRecorder.rewriteDecisions()` serialises a case given otherwise than it was appended (fewer, reordered or other records)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const recorder = new RunRecorder(join(dir, "run"));
    await recorder.open();
    const a = caseRecords("a", 3);
    const b = caseRecords("b", 3);
    const c = caseRecords("c", 2);
    for (const list of [a, b, c]) await recorder.append(list);
    const fewer = [a[0]!, a[2]!];
    const reordered = [b[1]!, b[0]!, b[2]!];
    const other = c.map((r) => ({ ...r, correct: false }));
    const final = [...fewer, ...reordered, ...other];
    await recorder.rewriteDecisions(final);
    assert.equal(await Deno.readTextFile(recorder.decisionsPath), lines(final));
    // Rewritten, the file is closed and the offsets forgotten: a second rewrite serialises.
    await recorder.rewriteDecisions(a);
    assert.equal(await Deno.readTextFile(recorder.decisionsPath), lines(a));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
