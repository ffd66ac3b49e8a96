import assert from "node:assert/strict";
import { schemaProblems } from "./validate.ts";

Deno.test("the vendored schemas refuse what the published formats refuse", async (t) => {
  const entry = {
    dataset: { id: "LocalLLaMA/typed-decisions", task_id: "accuracy", revision: "e039ebf" },
    value: 0.75,
    date: "2026-12-01T21:57:16.738Z",
    notes: "zero-shot",
  };
  await t.step("an eval-results entry as decibench writes it passes", () => {
    assert.deepEqual(schemaProblems("eval-results", [entry]), []);
  });
  await t.step("eval-results: a missing task_id, an unknown key, a source without url", () => {
    assert.match(
      schemaProblems("eval-results", [{ ...entry, dataset: { id: "a/b" } }]).join(),
      /task_id/,
    );
    assert.match(schemaProblems("eval-results", [{ ...entry, metric: "acc" }]).join(), /"metric"/);
    assert.match(
      schemaProblems("eval-results", [{ ...entry, source: { name: "x" } }]).join(),
      /url/,
    );
    assert.match(schemaProblems("eval-results", []).join(), /fewer than 1/);
  });
  await t.step("every-eval-ever: model_info needs deployment_type and model_availability", () => {
    const problems = schemaProblems("every-eval-ever", {
      schema_version: "0.3.0",
      evaluation_id: "x/y/1",
      retrieved_timestamp: "1",
      source_metadata: {
        source_type: "evaluation_run",
        source_organization_name: "unknown",
        evaluator_relationship: "third_party",
      },
      model_info: { name: "m", id: "d/m", additional_details: {} },
      eval_library: { name: "decibench", version: "0.1.0" },
      evaluation_results: [],
    });
    assert.match(problems.join(), /deployment_type/);
    assert.match(problems.join(), /model_availability/);
  });
  await t.step("every-eval-ever instance: single_turn needs an output", () => {
    const problems = schemaProblems("every-eval-ever-instance", {
      schema_version: "0.3.0",
      evaluation_id: "x",
      model_id: "d/m",
      evaluation_name: "e",
      sample_id: "s",
      interaction_type: "single_turn",
      input: { raw: "r", reference: ["a"] },
      answer_attribution: [],
      evaluation: { score: 1, is_correct: true },
    });
    assert.match(problems.join(), /output/);
  });
});
