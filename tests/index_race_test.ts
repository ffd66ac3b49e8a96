// Several benches finishing at once may each be the first to open a new run index: eight
// processes open the same fresh index and index a run each, twenty times over, and every run must
// land in it (creating or upgrading the schema is one transaction, waited for, not raced).
import assert from "node:assert/strict";
import { listRuns, openIndex, runDecisions } from "../lib/record/mod.ts";

const PROCESSES = 8;
const ROUNDS = 20;
const CHILD = new URL("./_index_race_child.ts", import.meta.url).pathname;

Deno.test("eight processes creating one new run index at once all get their run indexed, twenty times over", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-index-race-" });
  const children = Array.from({ length: PROCESSES }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", CHILD],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn());
  const encoder = new TextEncoder();
  const writers = children.map((c) => c.stdin.getWriter());
  const readers = children.map((c) => lines(c.stdout));
  const failures: string[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const path = `${tmp}/round-${round}/decibench.db`;
      // Every child gets its line before any reply is read: they open the new file together.
      await Promise.all(
        writers.map((w, i) => w.write(encoder.encode(`${path}\trun-${round}-${i}\n`))),
      );
      const replies = await Promise.all(readers.map((r) => r.next()));
      replies.forEach((reply, i) => {
        if (reply.value !== "ok") failures.push(`round ${round}, process ${i}: ${reply.value}`);
      });
      const index = openIndex(path, { readOnly: true });
      try {
        const ids = new Set(listRuns(index).map((r) => r.id));
        for (let i = 0; i < PROCESSES; i++) {
          const id = `run-${round}-${i}`;
          if (!ids.has(id)) failures.push(`round ${round}, process ${i}: run missing`);
          else if (runDecisions(index, id).length !== 2) failures.push(`${id}: decisions missing`);
        }
      } finally {
        index.close();
      }
    }
  } finally {
    await Promise.all(writers.map((w) => w.close()));
    for (const child of children) await child.status;
    await Deno.remove(tmp, { recursive: true });
  }
  assert.deepEqual(failures, [], `${failures.length} failures in ${PROCESSES * ROUNDS} runs`);
});

/** The lines of a child's stdout, one `next()` each. */
async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf("\n")) >= 0) {
      yield pending.slice(0, end);
      pending = pending.slice(end + 1);
    }
  }
}
