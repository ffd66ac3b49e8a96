import assert from "node:assert/strict";
import { record, runJson } from "../../tests/records_fixtures.ts";
import { loadRun } from "./load.ts";

Deno.test("`loadRun()` reads a crashed run, skipping its torn last line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const records = [record({ case: "c1" }), record({ case: "c2" })];
    await Deno.writeTextFile(
      `${dir}/run.json`,
      JSON.stringify(runJson(records, { status: "running" })),
    );
    const lines = records.map((r) => JSON.stringify(r)).join("\n");
    await Deno.writeTextFile(`${dir}/decisions.jsonl`, `${lines}\n{"case":"c3","workf`);
    const loaded = await loadRun(dir);
    assert.equal(loaded.run.status, "running");
    assert.deepEqual(loaded.records, records);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`loadRun()` refuses a missing or invalid run.json, naming the file and field", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    await t.step("missing", async () => {
      await assert.rejects(() => loadRun(dir), (error: Error) => {
        assert.match(error.message, /Cannot read run ".*": ".*run\.json" does not exist/);
        return true;
      });
    });
    await t.step("not JSON", async () => {
      await Deno.writeTextFile(`${dir}/run.json`, "{");
      await assert.rejects(() => loadRun(dir), SyntaxError);
    });
    await t.step("a field of the wrong type", async () => {
      const run = runJson([record()]);
      await Deno.writeTextFile(
        `${dir}/run.json`,
        JSON.stringify({ ...run, spec: { ...run.spec, model: 5 } }),
      );
      await assert.rejects(() => loadRun(dir), (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /field "spec\.model"/);
        return true;
      });
    });
    await t.step("a decision line of the wrong shape", async () => {
      await Deno.writeTextFile(`${dir}/run.json`, JSON.stringify(runJson([record()])));
      await Deno.writeTextFile(`${dir}/decisions.jsonl`, '{"case": "c1"}\n');
      await assert.rejects(() => loadRun(dir), /decision 1 of decisions\.jsonl/);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`loadRun()` reads a version 1 run.json (metrics as top-level summary fields)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const records = [record({ case: "c1" }), record({ case: "c2", correct: false })];
    const current = runJson(records);
    const { metrics, intervals, ...rest } = current.summary!;
    const v1 = {
      ...current,
      version: 1,
      summary: {
        ...rest,
        accuracy: metrics.accuracy,
        kl: metrics.kl,
        brier: metrics.brier,
        ece: metrics.ece,
        intervals: {
          accuracy: intervals.accuracy,
          kl: intervals.kl,
          brier: intervals.brier,
          ece: intervals.ece,
        },
      },
    };
    await Deno.writeTextFile(`${dir}/run.json`, JSON.stringify(v1));
    await Deno.writeTextFile(`${dir}/decisions.jsonl`, "");
    const loaded = await loadRun(dir);
    assert.equal(loaded.run.version, 2);
    // a v1 summary had the four headline metrics only
    const v1Names = ["accuracy", "kl", "brier", "ece"] as const;
    const pick = <T>(values: Record<string, T>) =>
      Object.fromEntries(v1Names.map((name) => [name, values[name]]));
    assert.deepEqual(loaded.run.summary?.metrics, { ...pick(metrics), nll: null });
    assert.deepEqual(loaded.run.summary?.intervals, { ...pick(intervals), nll: null });
    assert.equal(loaded.run.summary?.decisions, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
