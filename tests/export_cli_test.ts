// End-to-end: `deno task export` on real `deno task bench` runs. The Hugging Face eval-results
// YAML and the Every Eval Ever aggregate and instance files validate against the vendored
// schemas (compiled here with ajv, independently of the exporter's own check) and carry
// run.json's numbers; the CSV holds every decision. Runs that are not a complete card-protocol
// run are refused for the leaderboard file, naming why.
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { parse as parseCsv } from "csv-parse/sync";
import YAML from "yaml";
import { sha256Hex } from "../lib/bytes.ts";
import { METRIC_REGISTRY } from "../lib/metrics/mod.ts";
import { readDecisions } from "../lib/record/mod.ts";
import { CSV_COLUMNS } from "../lib/export/mod.ts";
import { ROOT, runScript } from "./bench_cli_helpers.ts";
import { benchRun, type MadeRun } from "./view_helpers.ts";

async function schema(path: string): Promise<object> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, "vendor", "schemas", path)));
}

/** A parsed export, read field by field by the assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

/** Asserts a value validates (a plain call: no type narrowing of the value). */
function assertSchema(validate: ValidateFunction, value: Json, what: string): void {
  const ok = validate(value);
  assert.ok(ok, `${what}: ${JSON.stringify(validate.errors)}`);
}

async function validators() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  return {
    evalResults: ajv.compile(await schema("hf-eval-results/eval_results.schema.json")),
    aggregate: ajv.compile(await schema("every-eval-ever/eval.schema.json")),
    instance: ajv.compile(await schema("every-eval-ever/instance_level_eval.schema.json")),
  };
}

async function exported(run: MadeRun, args: string[]) {
  const result = await runScript("export.ts", [run.dir, ...args]);
  return { ...result, paths: result.lines.map((l) => l.replace(/^\S+\s+/, "")) };
}

Deno.test("`deno task export` writes schema-valid eval-results, Every Eval Ever and CSV files with run.json's numbers", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-export-" });
  try {
    const runs = join(tmp, "runs");
    const full = await benchRun(runs, "full", { db: null });
    const limited = await benchRun(runs, "limited", { limit: 40, db: null });
    const incomplete = await benchRun(runs, "incomplete", {
      db: null,
      reference: { faults: "http500=0.2" },
      retries: 0,
    });
    assert.equal(incomplete.run.status, "incomplete", "the faults made some decisions fail");
    const v = await validators();
    const summary = full.run.summary!;

    await t.step(
      "eval-results: one entry per leaderboard metric, valid, equal to run.json",
      async () => {
        // The fitted predictor is trained on the train split: its rows are fine-tuned ones.
        const out = await exported(full, ["--format", "eval-results"]);
        assert.equal(out.code, 0, out.stderr);
        const file = join(full.dir, "export", ".eval_results", "typed-decisions.yaml");
        assert.deepEqual(out.paths, [file]);
        const entries: Json = YAML.parse(await Deno.readTextFile(file));
        assertSchema(v.evalResults, entries, "entries");
        assert.deepEqual(entries.map((e: { dataset: { task_id: string } }) => e.dataset.task_id), [
          "accuracy",
          "kl",
          "brier",
        ]);
        for (const e of entries) {
          assert.equal(e.dataset.id, "LocalLLaMA/typed-decisions");
          assert.equal(e.dataset.revision, full.run.spec.revision);
          assert.equal(e.value, summary.metrics[e.dataset.task_id as "accuracy"]);
          assert.equal(e.date, full.run.finished_at);
          assert.match(e.notes, /^fine-tuned on the Typed Decisions train split/);
          assert.ok(e.notes.includes(`decibench ${full.run.tool_version}`), e.notes);
          assert.equal(e.source, undefined);
        }
        const yes = await exported(full, [
          "--format",
          "eval-results",
          "--trained-on-train",
          "yes",
          "--source-url",
          "https://huggingface.co/datasets/me/typed-decisions-traces",
          "--out",
          "-",
        ]);
        assert.equal(yes.code, 0, yes.stderr);
        const printed: Json = YAML.parse(yes.lines.join("\n"));
        assertSchema(v.evalResults, printed, "printed");
        assert.match(printed[0].notes, /^fine-tuned on the Typed Decisions train split/);
        assert.equal(
          printed[0].source.url,
          "https://huggingface.co/datasets/me/typed-decisions-traces",
        );
      },
    );

    await t.step(
      "eval-results is refused for a run that is not a complete card-protocol run",
      async (t) => {
        const cases: [string, MadeRun, string[], RegExp][] = [
          [
            "a --limit run",
            limited,
            ["--trained-on-train", "yes"],
            /it ran 40 of the 400 test cases/,
          ],
          [
            "an incomplete run",
            incomplete,
            ["--trained-on-train", "yes"],
            /its status is "incomplete"/,
          ],
          [
            "--trained-on-train no for the fitted predictor",
            full,
            ["--trained-on-train", "no"],
            /"fitted" predictor is built from the Typed Decisions train split/,
          ],
          [
            "--trained-on-train maybe",
            full,
            ["--trained-on-train", "maybe"],
            /Cannot use --trained-on-train "maybe": it must be "yes" or "no"/,
          ],
        ];
        for (const [name, run, args, message] of cases) {
          await t.step(name, async () => {
            const out = await exported(run, ["--format", "eval-results", ...args]);
            assert.equal(out.code, 2, out.stderr);
            assert.match(out.stderr, message);
          });
        }
      },
    );

    await t.step(
      "every-eval-ever: the aggregate and its samples validate and agree with run.json",
      async () => {
        const out = await exported(full, ["--format", "every-eval-ever"]);
        assert.equal(out.code, 0, out.stderr);
        const [samplesPath, aggregatePath] = out.paths as [string, string];
        const root = join(full.dir, "export");
        assert.match(
          relative(root, aggregatePath),
          /^data\/typed-decisions\/decibench\/decibench-reference\/[0-9a-f-]{36}\.json$/,
        );
        assert.equal(samplesPath, aggregatePath.replace(/\.json$/, "_samples.jsonl"));
        const aggregate: Json = JSON.parse(await Deno.readTextFile(aggregatePath));
        assertSchema(v.aggregate, aggregate, "aggregate");
        const samplesText = await Deno.readTextFile(samplesPath);
        const lines: Json[] = samplesText.trimEnd().split("\n").map((l) => JSON.parse(l));
        for (const row of lines) assertSchema(v.instance, row, "row");
        const detail = aggregate.detailed_evaluation_results;
        assert.equal(detail.file_path, relative(root, samplesPath));
        assert.equal(detail.checksum, await sha256Hex(samplesText));
        assert.equal(detail.total_rows, 2000);
        assert.equal(lines.length, 2000);
        assert.equal(aggregate.eval_library.version, full.run.tool_version);
        for (const metric of METRIC_REGISTRY) {
          // Overall results (not subtasks), found by the registry name in their parameters.
          const result = aggregate.evaluation_results.find((r: Json) =>
            r.evaluation_name === "typed-decisions" &&
            r.metric_config.metric_parameters.registry_name === metric.name
          );
          assert.equal(result.score_details.score, summary.metrics[metric.name], metric.name);
          const ci = result.score_details.uncertainty.confidence_interval;
          assert.deepEqual([ci.lower, ci.upper], summary.intervals[metric.name], metric.name);
          assert.equal(result.metric_config.lower_is_better, !metric.higherIsBetter);
        }
        const records = await readDecisions(join(full.dir, "decisions.jsonl"));
        assert.deepEqual(
          lines.map((l) => l.sample_id),
          records.map((r) => `${r.case}/${r.question}`),
        );
        for (const l of lines) {
          assert.equal(l.evaluation_id, aggregate.evaluation_id);
          assert.equal(l.model_id, aggregate.model_info.id);
        }
        const correct = lines.filter((l) => l.evaluation.is_correct).length;
        assert.equal(correct / lines.length, summary.metrics.accuracy);
        assert.match(lines[0].input.raw, /"state":/);
      },
    );

    await t.step("every-eval-ever takes --model-id and refuses a malformed one", async () => {
      const out = await exported(limited, [
        "--format",
        "every-eval-ever",
        "--model-id",
        "acme/decider-7b",
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(
        out.paths[1] as string,
        /data\/typed-decisions\/acme\/decider-7b\/[0-9a-f-]{36}\.json$/,
      );
      const bad = await exported(limited, [
        "--format",
        "every-eval-ever",
        "--model-id",
        "no-slash",
      ]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--model-id "no-slash" is not in the form developer\/model/);
    });

    await t.step("csv: every decision, one row each, with the record's values", async () => {
      const out = await exported(incomplete, ["--format", "csv"]);
      assert.equal(out.code, 0, out.stderr);
      const rows: Record<string, string>[] = parseCsv(
        await Deno.readTextFile(out.paths[0] as string),
        {
          columns: true,
        },
      );
      const records = await readDecisions(join(incomplete.dir, "decisions.jsonl"));
      assert.equal(rows.length, records.length);
      assert.deepEqual(Object.keys(rows[0]!), CSV_COLUMNS);
      for (const [i, r] of records.entries()) {
        const row = rows[i]!;
        assert.equal(row.run_id, incomplete.run.id);
        assert.equal(row.case, r.case);
        assert.equal(row.question, r.question);
        assert.equal(row.answer, r.answer ?? "");
        assert.equal(row.correct, String(r.correct));
        assert.equal(row.confidence === "" ? null : Number(row.confidence), r.confidence);
        assert.equal(row.kl === "" ? null : Number(row.kl), r.kl);
        assert.equal(row.error_kind, r.error?.kind ?? "");
        assert.deepEqual(row.predicted === "" ? null : JSON.parse(row.predicted!), r.predicted);
        assert.deepEqual(JSON.parse(row.gold_probabilities!), r.gold_probabilities);
      }
      assert.ok(rows.some((r) => r.error_kind === "unavailable"), "the failed decisions are there");
    });

    await t.step("an unknown format or a missing run is a usage error", async () => {
      const format = await exported(full, ["--format", "xlsx"]);
      assert.equal(format.code, 2);
      assert.match(
        format.stderr,
        /Cannot use --format "xlsx": it is not a format; choose one of eval-results, every-eval-ever, csv, parquet/,
      );
      const missing = await runScript("export.ts", [join(tmp, "nowhere")]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /does not exist/);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
