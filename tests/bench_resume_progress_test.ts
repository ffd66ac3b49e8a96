// A resume's progress line carries the kept decisions' figures: its accuracy is over every
// labelled decision recorded so far (kept and newly asked), never "accuracy 0.0%" because the
// first re-asked case failed again.
import assert from "node:assert/strict";
import { readDecisions } from "../lib/record/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";
import { ticketsRun } from "./user_set_helpers.ts";

Deno.test("a resume's first progress line shows the accuracy of the kept and new decisions", async () => {
  // The faults fail the same cases again on the resume: its first re-asked case is an error.
  const made = await ticketsRun({ rows: 120, faults: "http500=0.3" });
  try {
    assert.equal(made.run.status, "incomplete");
    const resumed = await runScript("bench.ts", ["--resume", made.dir, "--no-db"]);
    const progress = resumed.stderr.split("\n").filter((l) => l.startsWith("progress "));
    assert.ok(progress.length > 0, resumed.stderr);
    const first = /^progress (\d+)\/(\d+) cases.*?, accuracy ([\d.]+)%/.exec(progress[0] ?? "");
    assert.ok(first, `the first progress line shows an accuracy: ${progress[0]}`);
    // decisions.jsonl holds the kept decisions first, then the new ones in answer order.
    const done = Number(first[1]);
    const records = await readDecisions(`${made.dir}/decisions.jsonl`);
    const cases: string[] = [];
    for (const r of records) if (cases.at(-1) !== r.case) cases.push(r.case);
    const counted = new Set(cases.slice(0, done));
    const upTo = records.filter((r) => counted.has(r.case) && r.gold !== null);
    const accuracy = upTo.filter((r) => r.correct).length / upTo.length * 100;
    assert.equal(first[3], accuracy.toFixed(1));
    assert.notEqual(first[3], "0.0");
  } finally {
    await Deno.remove(made.tmp, { recursive: true });
  }
});
