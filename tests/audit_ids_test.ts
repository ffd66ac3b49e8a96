// Two audits started in the same second get two directories: audit ids carry the same random
// suffix as run ids, and a new audit never writes into a directory that holds one.
import assert from "node:assert/strict";
import { runAudit } from "../lib/audit/mod.ts";
import { RunDirError } from "../lib/record/mod.ts";
import { validateWorkflow } from "../lib/workflow/mod.ts";
import { CHECK, item, writeTranscripts } from "./_audit_fixtures.ts";

Deno.test("`runAudit()` started twice in the same second writes two audit directories", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-audit-ids-" });
  try {
    const transcripts = await writeTranscripts(tmp, [item("t1", "Done."), item("t2", "Not yet.")]);
    const workflow = validateWorkflow({
      name: "ids",
      endpoint: { reference: { predictor: "uniform" } },
      output: { dir: `${tmp}/runs` },
      audits: { transcripts, judge: { reference: { predictor: "judge" } }, checks: [CHECK] },
    }, "ids.ts");
    const [a, b] = await Promise.all([runAudit(workflow), runAudit(workflow)]);
    assert.notEqual(a.dir, b.dir);
    assert.match(a.dir, /audit-\d{8}-\d{6}-ids-[0-9a-f]{4}$/);
    for (const result of [a, b]) {
      const meta = JSON.parse(await Deno.readTextFile(`${result.dir}/audit.json`));
      assert.equal(meta.status, "completed");
      assert.equal(result.records.length, 2);
    }
    // --out at a directory that holds an audit is refused instead of overwritten.
    await assert.rejects(
      runAudit(workflow, { outDir: a.dir }),
      RunDirError,
      "it already holds an audit (completed)",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
