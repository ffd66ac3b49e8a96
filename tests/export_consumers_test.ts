// The exports as their consumers read them: every Every Eval Ever `sample_hash` equal to EEE's
// recipe recomputed by Python itself (`json.dumps(..., sort_keys=True, separators=(",", ":"))`,
// ASCII-escaped by default), the aggregate and every sample valid against the vendored schemas
// (compiled here with ajv), decibench-specific metric ids namespaced with their parameters,
// provenance stated by flags or derived from the endpoint, per-lane and per-question subtasks
// equal to the run's report; and the Hugging Face eval-results file holding only the figures the
// dataset card defines, with their conventions, never a zero-shot row for a train-split model.
import assert from "node:assert/strict";
import { join } from "node:path";
import YAML from "yaml";
import { runScript } from "./bench_cli_helpers.ts";
import { benchRun } from "./view_helpers.ts";
import { assertValid as valid, exportEee, pythonRecipe, validators } from "./eee_helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("exports their consumers read correctly", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-consumers-" });
  try {
    const runs = join(tmp, "runs");
    const fitted = await benchRun(runs, "fitted", { db: null });
    const v = await validators();

    await t.step("every sample_hash equals EEE's recipe run by Python", async () => {
      const { samples, aggregate } = await exportEee(fitted.dir, join(tmp, "eee"));
      const text = await Deno.readTextFile(samples);
      // The dataset's states hold non-ASCII text: the recipe escapes it, so it matters.
      assert.ok(/[^ -~\n]/.test(text), "some samples carry non-ASCII text");
      const checked = await pythonRecipe(samples);
      assert.deepEqual(
        [checked.rows, checked.mismatched],
        [2000, 0],
        checked.first_mismatches.join(),
      );
      valid(v.aggregate, aggregate);
      for (const line of text.trimEnd().split("\n")) {
        const row = JSON.parse(line);
        valid(v.instance, row);
      }
    });

    await t.step("metric ids are namespaced and carry their parameters", async () => {
      const { aggregate } = await exportEee(fitted.dir, join(tmp, "eee"));
      const overall: Json[] = aggregate.evaluation_results.filter((r: Json) =>
        r.evaluation_name === "typed-decisions"
      );
      const ids = overall.map((r) => r.metric_config.metric_id);
      for (const bare of ["brier", "kl", "ece", "nll"]) {
        assert.ok(!ids.includes(bare), `bare id ${bare}`);
      }
      assert.ok(ids.includes("accuracy"));
      for (const r of overall) {
        const config = r.metric_config;
        assert.equal(r.evaluation_result_id, config.metric_id);
        if (config.metric_id !== "accuracy") assert.match(config.metric_id, /^decibench\./);
        assert.match(config.metric_parameters.tie_rule, /listed first/);
      }
      const byName = (name: string) =>
        overall.find((r) => r.metric_config.metric_parameters.registry_name === name)
          .metric_config;
      assert.equal(byName("brier").metric_id, "decibench.brier_vs_gold");
      assert.equal(byName("brier").max_score, 2);
      assert.equal(byName("kl").metric_parameters.kl_floor, 1e-12);
      assert.equal(byName("ece").metric_parameters.bins, 10);
      assert.equal(byName("ece").metric_parameters.comparable_with_dataset_card, false);
    });

    await t.step("per-lane and per-question subtasks equal the run's report", async () => {
      const { aggregate } = await exportEee(fitted.dir, join(tmp, "eee"));
      const report: Json = JSON.parse(await Deno.readTextFile(join(fitted.dir, "report.json")));
      const groups = [...report.byWorkflow, ...report.byQuestion];
      assert.equal(groups.length, 4 + 20);
      for (const group of groups) {
        const result = aggregate.evaluation_results.find((r: Json) =>
          r.evaluation_result_id === `accuracy/${group.key}`
        );
        assert.ok(result, group.key);
        assert.equal(result.evaluation_name, `typed-decisions/${group.key}`);
        assert.equal(result.score_details.score, group.metrics.accuracy, group.key);
        const ci = result.score_details.uncertainty.confidence_interval;
        assert.deepEqual([ci.lower, ci.upper], group.intervals.accuracy, group.key);
        const brier = aggregate.evaluation_results.find((r: Json) =>
          r.evaluation_result_id === `decibench.brier_vs_gold/${group.key}`
        );
        // A mean of floats: equal up to the order of summation.
        assert.ok(Math.abs(brier.score_details.score - group.metrics.brier) < 1e-12, group.key);
      }
    });

    await t.step("provenance: stated by flags, else derived for the reference server", async () => {
      const derived = (await exportEee(fitted.dir, join(tmp, "eee"))).aggregate;
      assert.equal(derived.model_info.additional_details.deployment_type, "self_deployed");
      assert.equal(derived.model_info.inference_engine.name, "decibench-reference");
      assert.equal(derived.source_metadata.evaluator_relationship, "first_party");
      const stated = (await exportEee(fitted.dir, join(tmp, "eee2"), [
        "--org",
        "Acme Labs",
        "--relationship",
        "collaborative",
        "--availability",
        "closed_weights",
      ])).aggregate;
      valid(v.aggregate, stated);
      assert.equal(stated.source_metadata.source_organization_name, "Acme Labs");
      assert.equal(stated.source_metadata.evaluator_relationship, "collaborative");
      assert.equal(stated.model_info.additional_details.model_availability, "closed_weights");
      const bad = await runScript("export.ts", [
        fitted.dir,
        "--format",
        "every-eval-ever",
        "--relationship",
        "friend",
      ]);
      assert.equal(bad.code, 2);
      assert.match(
        bad.stderr,
        /Cannot use --relationship "friend": it must be one of first_party, third_party, collaborative, other/,
      );
    });

    await t.step("eval-results: the card's figures only, with their conventions", async () => {
      const uniform = await benchRun(runs, "uniform", { db: null, predictor: "uniform" });
      const out = await runScript("export.ts", [
        uniform.dir,
        "--format",
        "eval-results",
        "--trained-on-train",
        "no",
        "--out",
        "-",
      ]);
      assert.equal(out.code, 0, out.stderr);
      const entries: Json = YAML.parse(out.lines.join("\n"));
      valid(v.evalResults, entries);
      assert.deepEqual(entries.map((e: Json) => e.dataset.task_id), ["accuracy", "kl", "brier"]);
      for (const e of entries) assert.match(e.notes, /\(zero-shot\)/);
      const kl = entries.find((e: Json) => e.dataset.task_id === "kl");
      assert.match(kl.notes, /floored at 1e-12/);
      assert.match(kl.notes, /pooled over all decisions, not averaged per question/);
      // The card's Uniform row: KL 0.444, Brier 0.238.
      assert.equal(kl.value.toFixed(3), "0.444");
      const missing = await runScript("export.ts", [uniform.dir, "--format", "eval-results"]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--trained-on-train yes\|no is required/);

      // --source-url every-eval-ever: the run's record in the Every Eval Ever datastore, at the
      // path the every-eval-ever export writes it.
      const linked = await runScript("export.ts", [
        fitted.dir,
        "--format",
        "eval-results",
        "--source-url",
        "every-eval-ever",
        "--out",
        "-",
      ]);
      assert.equal(linked.code, 0, linked.stderr);
      const record = (await exportEee(fitted.dir, join(tmp, "eee3"))).path;
      for (const e of YAML.parse(linked.lines.join("\n"))) {
        valid(v.evalResults, [e]);
        assert.equal(
          e.source.url,
          `https://huggingface.co/datasets/evaleval/EEE_datastore/blob/main/${record}`,
        );
      }
      const forced = await runScript("export.ts", [
        fitted.dir,
        "--format",
        "eval-results",
        "--out",
        "-",
      ]);
      assert.equal(forced.code, 0, forced.stderr);
      for (const e of YAML.parse(forced.lines.join("\n"))) {
        assert.match(e.notes, /^fine-tuned on the Typed Decisions train split/);
      }
      const refused = await runScript("export.ts", [
        fitted.dir,
        "--format",
        "eval-results",
        "--trained-on-train",
        "no",
      ]);
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr,
        /"fitted" predictor is built from the Typed Decisions train split/,
      );
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
