// End-to-end: `deno task export --format every-eval-ever` on a run of the user's own question set
// (a copy of the tickets set). The aggregate names a private data set (`source_type: "other"`,
// the file's name and sha256), every sample carries the state read from the recorded file, both
// validate against the vendored schemas (ajv, independently of the exporter); once the file
// changes, the export is refused naming it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { Ajv } from "ajv";
import { ROOT, runScript } from "./bench_cli_helpers.ts";
import { ticketsRun } from "./user_set_helpers.ts";

/** A parsed export, read field by field by the assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

async function schema(path: string): Promise<object> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, "vendor", "schemas", path)));
}

Deno.test("`export --format every-eval-ever` works on a user question set, states from its file", async (t) => {
  const made = await ticketsRun({ rows: 60 });
  try {
    const out = join(made.tmp, "eee");
    await t.step("the aggregate and samples validate and carry the file's states", async () => {
      const result = await runScript("export.ts", [
        made.dir,
        "--format",
        "every-eval-ever",
        "--out",
        out,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const paths = result.lines.map((l) => l.replace(/^\S+\s+/, ""));
      const aggregatePath = paths.find((p) => p.endsWith(".json")) as string;
      const samplesPath = paths.find((p) => p.endsWith("_samples.jsonl")) as string;
      assert.match(aggregatePath, /data\/tickets\//);
      const aggregate: Json = JSON.parse(await Deno.readTextFile(aggregatePath));
      const ajv = new Ajv({ allErrors: true, strict: false });
      const validAggregate = ajv.compile(await schema("every-eval-ever/eval.schema.json"));
      assert.ok(validAggregate({ ...aggregate }), JSON.stringify(validAggregate.errors));
      const source = aggregate.evaluation_results[0].source_data;
      assert.equal(source.source_type, "other");
      assert.equal(source.dataset_name, "tickets.csv");
      assert.equal(source.additional_details.sha256, made.run.spec.revision);
      const validSample = ajv.compile(
        await schema("every-eval-ever/instance_level_eval.schema.json"),
      );
      const samples: Json[] = (await Deno.readTextFile(samplesPath)).trim().split("\n").map((
        l,
      ) => JSON.parse(l));
      assert.equal(samples.length, made.rows.length * 3);
      const byId = new Map(made.rows.map((r) => [r.ticket_id as string, r]));
      for (const sample of samples) {
        assert.ok(validSample({ ...sample }), JSON.stringify(validSample.errors));
        const row = byId.get(sample.metadata.case) as Record<string, unknown>;
        const raw = JSON.parse(sample.input.raw);
        assert.deepEqual(raw.state, { tier: row.tier, subject: row.subject, message: row.message });
        assert.equal(raw.question.name, sample.metadata.question);
      }
    });
    await t.step("a changed file is refused, naming it", async () => {
      await Deno.writeTextFile(made.file, "\n", { append: true });
      const result = await runScript("export.ts", [
        made.dir,
        "--format",
        "every-eval-ever",
        "--out",
        join(made.tmp, "eee2"),
      ]);
      assert.equal(result.code, 2);
      assert.ok(result.stderr.includes(made.file), result.stderr);
      assert.match(result.stderr, /changed since the run/);
    });
  } finally {
    await Deno.remove(made.tmp, { recursive: true });
  }
});
