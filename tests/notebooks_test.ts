import assert from "node:assert/strict";
import { join } from "node:path";
import { loadWorkflow, predictorNames, runBenchmark, validateWorkflow } from "../mod.ts";
import { readDecisions } from "../lib/record/mod.ts";
import { ticketsRun } from "./user_set_helpers.ts";

const NOTEBOOKS = ["threshold_sweep", "per_lane", "explore_run", "policy"];

interface Output {
  output_type: string;
  name?: string;
  ename?: string;
  evalue?: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
}

function text(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join("") : value ?? "";
}

async function jupyterAvailable(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("jupyter", {
      args: ["nbconvert", "--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

async function listing(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

async function execute(
  name: string,
  outDir: string,
  env: Record<string, string>,
): Promise<Output[]> {
  const result = await new Deno.Command("jupyter", {
    args: [
      "nbconvert",
      "--to",
      "notebook",
      "--execute",
      "--ExecutePreprocessor.kernel_name=deno",
      "--ExecutePreprocessor.timeout=600",
      "--output-dir",
      outDir,
      `notebooks/${name}.ipynb`,
    ],
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(result.stderr);
  assert.ok(result.success, `${name}.ipynb failed to execute:\n${stderr.slice(-3000)}`);
  const notebook = JSON.parse(await Deno.readTextFile(join(outDir, `${name}.ipynb`)));
  return notebook.cells.flatMap((cell: { outputs?: Output[] }) => cell.outputs ?? []);
}

/** Decisions of a lane with a gold label, counted from decisions.jsonl. */
function labelledIn(decisions: readonly { workflow: string; gold: string | null }[], lane: string) {
  return decisions.filter((d) => d.workflow === lane && d.gold !== null).length;
}

/** The text lines a notebook showed as display data. */
function shown(outputs: readonly Output[]): string {
  return outputs.map((o) => text(o.data?.["text/plain"])).join("");
}

Deno.test({
  name: "every notebook executes top to bottom without an error output and draws a chart",
  async fn(t) {
    assert.ok(
      await jupyterAvailable(),
      "jupyter nbconvert is missing: run `bash scripts/test_deps.sh` (or `deno task test`), which installs it and the Deno kernel",
    );
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
        const outDir = await Deno.makeTempDir();
        const env: Record<string, string> = name === "explore_run"
          ? { DECIBENCH_RUNS_DIR: emptyRuns }
          : { DECIBENCH_RUN_DIR: runDir };
        let outputs = await execute(name, outDir, env);
        // The Deno kernel can publish a display after nbconvert has seen its cell end, which then
        // drops it (seen once under the parallel suite): a notebook whose run line is missing runs
        // once more, so only one that never shows it fails.
        if (!shown(outputs).includes("decisions, status completed")) {
          outputs = await execute(name, await Deno.makeTempDir(), env);
        }
        const errors = outputs.filter((o) =>
          o.output_type === "error" || (o.output_type === "stream" && o.name === "stderr")
        );
        assert.deepEqual(
          errors.map((o) => `${o.ename ?? o.name}: ${o.evalue ?? text(o.text)}`),
          [],
          `${name} wrote error output`,
        );
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
        const outputs = await execute("threshold_sweep", await Deno.makeTempDir(), {
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
    await t.step("explore_run and per_lane on a run of a user question set (tickets)", async () => {
      const made = await ticketsRun({ rows: 90 });
      try {
        const decisions = await readDecisions(join(made.dir, "decisions.jsonl"));
        const answered = decisions.filter((d) => d.error === null).length;
        const labelled = decisions.filter((d) => d.gold !== null).length;
        assert.ok(labelled < decisions.length, "the copy has unlabelled rows");
        const env = { DECIBENCH_RUN_DIR: made.dir };
        const explore = await execute("explore_run", await Deno.makeTempDir(), env);
        assert.deepEqual(explore.filter((o) => o.output_type === "error"), []);
        const said = explore.map((o) =>
          text(o.data?.["text/plain"]) + text(o.data?.["text/markdown"])
        ).join("\n");
        assert.match(
          said,
          new RegExp(`${decisions.length} decisions: ${answered} answered, ${labelled} labelled`),
        );
        assert.doesNotMatch(said, /\*\*Question:\*\* \?/);
        assert.match(
          said,
          /\*\*Question:\*\* (Which team should handle|This ticket needs|How severe)/,
        );
        const first = made.rows.find((r) => said.includes(`### ${r.ticket_id} `)) as Record<
          string,
          string
        >;
        assert.ok(first, "a mistake's state is shown");
        assert.ok(said.includes(JSON.stringify(first.message)), "its state comes from the file");
        const lanes = await execute("per_lane", await Deno.makeTempDir(), env);
        assert.deepEqual(lanes.filter((o) => o.output_type === "error"), []);
        const tables = lanes.map((o) => text(o.data?.["text/markdown"])).join("\n");
        assert.match(tables, /### By lane/);
        assert.match(tables, /\| group \| decisions \| labelled \| accuracy/);
        const chat = labelledIn(decisions, "chat");
        assert.match(tables, new RegExp(`\\| chat \\| \\d+ \\| ${chat} \\|`));
      } finally {
        await Deno.remove(made.tmp, { recursive: true });
      }
    });
    assert.deepEqual(await listing("notebooks"), before, "notebooks must not write into the repo");
  },
});
