// `deno task export --format parquet`, read back by DuckDB (@duckdb/node-api: an independent
// Parquet reader, not hyparquet): one row per decision with the record's fields, the predicted
// and gold distributions as MAP columns in option order, nulls where the record has none (failed
// decisions, unlabelled ones), row groups of the size asked for.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { exportParquet, PARQUET_COLUMNS, writeExport } from "../lib/export/mod.ts";
import { type DecisionRecord, openRun, readDecisions } from "../lib/record/mod.ts";
import { ROOT, runScript } from "./bench_cli_helpers.ts";
import { benchRun } from "./view_helpers.ts";

type Row = Record<string, unknown>;

async function duck(sql: string): Promise<Row[]> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    return reader.getRowObjectsJson() as Row[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A MAP value as DuckDB gives it (`[{key, value}]`) back to an object in entry order. */
function mapOf(value: unknown): Record<string, number> | null {
  if (value === null) return null;
  return Object.fromEntries(
    (value as { key: string; value: number }[]).map((e) => [e.key, e.value]),
  );
}

function sqlPath(path: string): string {
  return `'${path.replaceAll("'", "''")}'`;
}

async function assertRowsEqual(file: string, records: DecisionRecord[], runId: string) {
  const rows = await duck(`select * from read_parquet(${sqlPath(file)})`);
  assert.equal(rows.length, records.length);
  assert.deepEqual(Object.keys(rows[0]!), [...PARQUET_COLUMNS]);
  for (const [i, r] of records.entries()) {
    const row = rows[i]!;
    assert.equal(row.run_id, runId);
    assert.equal(row.case, r.case);
    assert.equal(row.workflow, r.workflow);
    assert.equal(row.question, r.question);
    assert.equal(row.type, r.type);
    assert.equal(row.answer, r.answer);
    assert.equal(row.confidence, r.confidence);
    assert.equal(row.gold, r.gold);
    assert.equal(row.correct, r.gold === null ? null : r.correct);
    assert.equal(row.kl, r.kl ?? null); // absent for an unlabelled decision: a null cell
    assert.equal(row.brier, r.brier ?? null);
    assert.equal(row.latency_ms, r.latency_ms);
    assert.equal(row.attempts, r.attempts);
    assert.equal(row.input_tokens, r.input_tokens);
    assert.equal(row.calibrated, r.calibrated);
    assert.equal(row.error_kind, r.error?.kind ?? null);
    assert.equal(row.error_message, r.error?.message ?? null);
    const predicted = mapOf(row.predicted);
    assert.deepEqual(predicted, r.predicted);
    if (predicted !== null) assert.deepEqual(Object.keys(predicted), Object.keys(r.predicted!));
    assert.deepEqual(mapOf(row.gold_probabilities), r.gold_probabilities);
  }
}

Deno.test("parquet export: DuckDB reads every decision with the record's values", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-parquet-" });
  try {
    const runs = join(tmp, "runs");
    await Deno.mkdir(runs);

    await t.step("a run with failed decisions: nulls where the record has none", async () => {
      const run = await benchRun(runs, "faults", {
        db: null,
        reference: { faults: "http500=0.2" },
        retries: 0,
      });
      const out = join(tmp, "faults.parquet");
      const exported = await runScript("export.ts", [run.dir, "--format", "parquet", "--out", out]);
      assert.equal(exported.code, 0, exported.stderr);
      const records = await readDecisions(join(run.dir, "decisions.jsonl"));
      assert.ok(records.some((r) => r.error !== null), "some decisions failed");
      await assertRowsEqual(out, records, run.run.id);
      const [counts] = await duck(
        `select count(*)::INTEGER n, count(predicted)::INTEGER answered,
           avg(kl) kl from read_parquet(${sqlPath(out)})`,
      );
      assert.equal(counts!.n, run.run.summary!.decisions);
      assert.equal(counts!.answered, run.run.summary!.answered);
      assert.ok(Math.abs((counts!.kl as number) - run.run.summary!.metrics.kl!) < 1e-12);
    });

    await t.step("a user question set with unlabelled decisions and lanes", async () => {
      const dir = join(runs, "tickets");
      const bench = await runScript("bench.ts", [
        join(ROOT, "examples", "tickets", "workflow.yaml"),
        "--out",
        dir,
        "--no-db",
      ]);
      assert.ok(bench.code === 0 || bench.code === 1, bench.stderr);
      const out = join(tmp, "tickets.parquet");
      const exported = await runScript("export.ts", [dir, "--format", "parquet", "--out", out]);
      assert.equal(exported.code, 0, exported.stderr);
      const records = await readDecisions(join(dir, "decisions.jsonl"));
      assert.ok(records.some((r) => r.gold === null), "some decisions are unlabelled");
      await assertRowsEqual(out, records, (await openRun(dir)).run.id);
      const [unlabelled] = await duck(
        `select count(*)::INTEGER n from read_parquet(${sqlPath(out)})
         where gold is null and correct is null`,
      );
      assert.equal(unlabelled!.n, records.filter((r) => r.gold === null).length);
    });

    await t.step("written in row groups of the size asked for", async () => {
      const run = await benchRun(runs, "full", { db: null });
      const out = join(tmp, "groups.parquet");
      await writeExport(exportParquet(await openRun(run.dir), { rowGroupRows: 300 }), run.dir, {
        out,
        file: true,
      });
      const [meta] = await duck(
        `select count(distinct row_group_id)::INTEGER as n_groups,
           max(row_group_num_rows)::INTEGER as max_rows
         from parquet_metadata(${sqlPath(out)})`,
      );
      assert.deepEqual(meta, { n_groups: Math.ceil(2000 / 300), max_rows: 300 });
      const records = await readDecisions(join(run.dir, "decisions.jsonl"));
      await assertRowsEqual(out, records, run.run.id);
      assert.throws(() => exportParquet(run as never, { rowGroupRows: 0 }), RangeError);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
