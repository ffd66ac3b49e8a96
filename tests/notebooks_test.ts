import assert from "node:assert/strict";
import { loadWorkflow, predictorNames, runBenchmark, validateWorkflow } from "../mod.ts";
import {
  assertJupyter,
  executeNotebook,
  executeRunNotebook,
  notebookErrors,
  notebookText as text,
  shownText as shown,
} from "./notebook_helpers.ts";

const NOTEBOOKS = ["threshold_sweep", "per_lane", "explore_run", "policy"];

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test({
  name: "every notebook executes top to bottom without an error output and draws a chart",
  async fn(t) {
    await assertJupyter();
    const before = await listing("notebooks");
    // One stored run, read by two notebooks; the third finds no run and benchmarks on its own.
    const runDir = await Deno.makeTempDir({ prefix: "decibench-notebook-test-" });
    const predictor = predictorNames().includes("fitted") ? "fitted" : "uniform";
    await runBenchmark(
      validateWorkflow({ name: "notebooks", endpoint: { reference: { predictor } } }, "test"),
      { outDir: runDir, dbPath: null },
    );
    const emptyRuns = await Deno.makeTempDir();
    for (const name of NOTEBOOKS) {
      await t.step(name, async () => {
        const env: Record<string, string> = name === "explore_run"
          ? { DECIBENCH_RUNS_DIR: emptyRuns }
          : { DECIBENCH_RUN_DIR: runDir };
        const outputs = await executeRunNotebook(name, env);
        assert.deepEqual(notebookErrors(outputs), [], `${name} wrote error output`);
        const charts = outputs.filter((o) => text(o.data?.["text/html"]).includes("<svg"));
        assert.ok(charts.length > 0, `${name} drew no chart`);
        // Summary lines are display data, never stdout: the kernel's stream can come after the
        // cell ends, and nbconvert drops it (seen in CI).
        const said = shown(outputs);
        assert.match(
          said,
          /decisions, status completed/,
          `${name} did not show the run line; it said: ${said.slice(0, 2000)}`,
        );
        if (name === "explore_run") {
          assert.match(said, /No stored run: benchmarked the reference server/);
        }
      });
    }
    await t.step(
      "threshold_sweep on a run of a user question set (the invoices example)",
      async () => {
        const invoices = await loadWorkflow("examples/invoices/workflow.ts");
        const userRun = await Deno.makeTempDir({ prefix: "decibench-notebook-test-" });
        await runBenchmark(
          validateWorkflow({
            ...invoices,
            endpoint: { ...invoices.endpoint, reference: { predictor } },
          }, "test"),
          { outDir: userRun, dbPath: null },
        );
        const outputs = await executeNotebook("threshold_sweep", await Deno.makeTempDir(), {
          DECIBENCH_RUN_DIR: userRun,
        });
        assert.deepEqual(outputs.filter((o) => o.output_type === "error"), []);
        const said = outputs.map((o) =>
          text(o.data?.["text/plain"]) + text(o.data?.["text/markdown"]) +
          text(o.data?.["text/html"])
        ).join("");
        assert.match(said, /question set examples\/invoices\/invoices\.csv \(300 rows\)/);
        assert.match(said, /600 labelled yes\/no items in 4 lanes/);
        assert.match(said, /overdue\/matches_order/);
      },
    );
    assert.deepEqual(await listing("notebooks"), before, "notebooks must not write into the repo");
  },
});
