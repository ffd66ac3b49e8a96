import assert from "node:assert/strict";
import { join } from "node:path";
import { openQuestionSet } from "./question_set.ts";
import {
  openRecordedStates,
  RECORDED_LOOKUP_ROWS,
  type RecordedStates,
  withRecordedStates,
} from "./recorded_states.ts";
import type { FileQuestionSetRecord } from "./schemas.ts";

const ROWS = [
  { id: "a", text: "Refund please", label: "yes" },
  { id: "b", text: "Where is my parcel", label: "no" },
  { id: "c", text: "refund again", label: "" },
];

async function recorded(dir: string): Promise<FileQuestionSetRecord> {
  const file = join(dir, "set.jsonl");
  await Deno.writeTextFile(file, ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const set = await openQuestionSet({
    dataset: { path: file, id: "id", state: "text" },
    questions: {
      ask: { type: "choice", instructions: "Refund?", criteria: ["yes", "no"], gold: "label" },
    },
  });
  const record = set.info.questionSet;
  assert.equal(record?.kind, "file");
  return { ...record as FileQuestionSetRecord, path: "set.jsonl" };
}

Deno.test("`openRecordedStates()` reads a recorded file's states while its sha256 matches", async (t) => {
  const tmp = await Deno.makeTempDir();
  try {
    const record = await recorded(tmp);
    const runDir = join(tmp, "runs", "r1");
    await t.step("a relative path is found from the run directory's grandparent", async () => {
      for (const lookupRows of [100, 0]) {
        const states = await openRecordedStates(record, { runDir, lookupRows });
        assert.ok(!("message" in states), "message" in states ? states.message : "");
        const reader = states as RecordedStates;
        assert.equal(reader.path, join(tmp, "set.jsonl"));
        assert.equal((await reader.caseOf("b"))?.state, "Where is my parcel");
        assert.equal(await reader.caseOf("zz"), null);
        assert.deepEqual(await reader.matching("REFUND"), ["a", "c"]);
      }
    });
    await t.step("`withRecordedStates()` pairs items with cases in their order", async () => {
      const items = ["c", "a", "zz", "b", "a"].map((id, i) => ({ case: id, i }));
      for (const rows of [record.rows, RECORDED_LOOKUP_ROWS + 1]) {
        // A record claiming more rows than the map holds takes the batched reads.
        const states = await openRecordedStates({ ...record, rows }, { runDir });
        assert.ok(!("message" in states));
        const paired = await Array.fromAsync(
          withRecordedStates(items, states as RecordedStates, { batch: 2 }),
        );
        assert.deepEqual(
          paired.map((p) => [p.item.i, p.case?.id ?? null]),
          [[0, "c"], [1, "a"], [2, null], [3, "b"], [4, "a"]],
        );
      }
    });
    await t.step("a missing file is named with where it was looked for", async () => {
      const states = await openRecordedStates(record, { runDir: join(tmp, "elsewhere", "x", "y") });
      assert.ok("message" in states);
      assert.equal(states.kind, "missing");
      assert.match(states.message, /^The question set file set\.jsonl is not found \(looked for /);
    });
    await t.step("a changed file is named with both hashes", async () => {
      await Deno.writeTextFile(join(tmp, "set.jsonl"), "\n", { append: true });
      const states = await openRecordedStates(record, { runDir });
      assert.ok("message" in states);
      assert.equal(states.kind, "changed");
      assert.ok(states.message.includes(record.sha256.slice(0, 12)), states.message);
      assert.match(states.message, /^The question set file set\.jsonl changed since the run/);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
