import assert from "node:assert/strict";
import { join } from "node:path";
import {
  compactDecisions,
  inCaseOrder,
  KeptDecisions,
  readDecisionLines,
  readDecisions,
  RunRecorder,
  scanDecisions,
} from "../lib/record/mod.ts";
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

const expected = (ids: string[], n: number) =>
  new Map(ids.map((id) => [id, Array.from({ length: n }, (_, i) => `q${i + 1}`)]));

Deno.test("`RunRecorder.append()` writes each case's decisions in the order cases are answered, and the file only grows", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const recorder = new RunRecorder(dir);
    await recorder.open();
    const a = caseRecords("a", 5);
    const b = caseRecords("b", 3);
    const c = [errored({ case: "c", question: "q1" })];
    const inode = (await Deno.stat(recorder.decisionsPath)).ino;
    let size = 0;
    // Answered out of order (parallel requests).
    for (const list of [b, c, a]) {
      await recorder.append(list);
      const stat = await Deno.stat(recorder.decisionsPath);
      assert.equal(stat.ino, inode, "the same file, never replaced");
      assert.ok(stat.size > size);
      size = stat.size;
    }
    recorder.close();
    assert.equal(await Deno.readTextFile(recorder.decisionsPath), lines([...b, ...c, ...a]));
    assert.deepEqual(await readDecisions(recorder.decisionsPath), [...b, ...c, ...a]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`readDecisionLines()` streams decisions with their line numbers and skips a torn last line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "decisions.jsonl");
    const a = caseRecords("a", 2);
    // Long enough to cross the stream's chunks; the last line cut mid-record.
    const many = Array.from({ length: 3000 }, (_, i) => record({ case: `m${i}`, question: "q1" }));
    const torn = JSON.stringify(record({ case: "t" })).slice(0, 40);
    await Deno.writeTextFile(path, lines([...a, ...many]) + "\n" + torn);
    const read: { line: number; record: DecisionRecord }[] = [];
    for await (const entry of readDecisionLines(path)) read.push(entry);
    assert.equal(read.length, 3002);
    assert.deepEqual(read.map((r) => r.record), [...a, ...many]);
    assert.deepEqual(read.slice(0, 3).map((r) => r.line), [1, 2, 3]);
    assert.equal(read.at(-1)?.line, 3002);
    const none: unknown[] = [];
    for await (const entry of readDecisionLines(join(dir, "absent.jsonl"))) none.push(entry);
    assert.deepEqual(none, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`scanDecisions()` leaves a clean file alone, and `compactDecisions()` keeps only the kept cases' last lines", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "decisions.jsonl");
    const a = caseRecords("a", 2);
    const b = caseRecords("b", 2);
    await t.step("a file of answered cases only needs no copy", async () => {
      await Deno.writeTextFile(path, lines([...b, ...a]));
      const scanned = await scanDecisions(path, expected(["a", "b"], 2));
      assert.equal(scanned.keep, null);
      assert.deepEqual([...scanned.answered], ["a", "b"]);
      assert.equal(scanned.decisions, 4);
      // Read back as a run reaches them: "a" first, though the file holds "b" first.
      const kept = new KeptDecisions(path, scanned.decisions);
      assert.deepEqual(await kept.take("a", 2), a);
      assert.deepEqual(await kept.take("b", 2), b);
      await kept.close();
    });
    await t.step("errored, superseded, unselected and torn lines are dropped", async () => {
      const failed = [
        errored({ case: "c", question: "q1" }),
        errored({ case: "c", question: "q2" }),
      ];
      const old = caseRecords("a", 2).map((r) => ({ ...r, correct: false }));
      const other = caseRecords("x", 2);
      const torn = JSON.stringify(record({ case: "d" })).slice(0, 30);
      // `a` answered twice: the later answer is the one kept.
      await Deno.writeTextFile(path, lines([...old, ...b, ...failed, ...other, ...a]) + torn);
      const scanned = await scanDecisions(path, expected(["a", "b", "c", "d"], 2));
      assert.deepEqual([...scanned.answered], ["a", "b"]);
      assert.ok(scanned.keep !== null);
      await compactDecisions(path, scanned.keep);
      assert.equal(await Deno.readTextFile(path), lines([...b, ...a]));
      // Lines appended after the kept ones (this invocation's answers) are never read as kept.
      await Deno.writeTextFile(path, lines(caseRecords("c", 2)), { append: true });
      const kept = new KeptDecisions(path, scanned.decisions);
      assert.deepEqual(await kept.take("a", 2), a, "the later answer");
      await assert.rejects(kept.take("c", 2), /kept decisions of case "c" are not in/);
      await kept.close();
      await Deno.writeTextFile(path, lines([...b, ...a]));
      assert.equal((await scanDecisions(path, expected(["a", "b"], 2))).keep, null);
    });
    await t.step("a last line without its newline is rewritten with one", async () => {
      await Deno.writeTextFile(path, lines([...a, ...b]).slice(0, -1));
      const scanned = await scanDecisions(path, expected(["a", "b"], 2));
      assert.equal(scanned.answered.size, 2);
      assert.ok(scanned.keep !== null);
      await compactDecisions(path, scanned.keep);
      assert.equal(await Deno.readTextFile(path), lines([...a, ...b]));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`inCaseOrder()` gives one order for any arrival order: cases by id, a case's decisions as listed", () => {
  const a = caseRecords("a", 2);
  const b = caseRecords("b", 3);
  const c = caseRecords("c", 1);
  const sorted = [...a, ...b, ...c];
  assert.equal(inCaseOrder(sorted), sorted, "already in order: the same array");
  assert.deepEqual(inCaseOrder([...c, ...a, ...b]), sorted);
  assert.deepEqual(inCaseOrder([...b, ...c, ...a]), sorted);
});
