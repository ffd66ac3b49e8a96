/**
 * The JSON Schema of a workflow file, generated from the zod schema the loader validates with, so
 * an editor completes and checks the fields of a JSON or YAML workflow. The package ships it as
 * `schemas/workflow.schema.json` (`deno task schema` writes it; a test checks it is current).
 *
 * @module
 */
import * as z from "zod";
import { WorkflowSchema } from "./schemas.ts";

/** Where the package ships the workflow schema, relative to its root. */
export const WORKFLOW_SCHEMA_PATH = "schemas/workflow.schema.json";

/**
 * The JSON Schema (draft 2020-12) of a workflow file as written: the input side of the zod
 * schema (fields with defaults are optional), plus the `$schema` key a JSON or YAML file may name
 * it with. Rules across fields (exactly one of `endpoint` and `endpoints`, a dataset with its
 * questions) are the loader's alone.
 *
 * @returns The schema as a JSON value.
 * @example
 * ```ts
 * import { workflowJsonSchema } from "./json_schema.ts";
 * const schema = workflowJsonSchema();
 * if (!("endpoint" in (schema.properties as object))) throw new Error("expected endpoint");
 * ```
 */
export function workflowJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(WorkflowSchema, { io: "input", unrepresentable: "any" });
  const { $schema, properties, ...rest } = generated as Record<string, unknown>;
  return {
    $schema,
    title: "decibench workflow",
    description:
      "A decibench workflow file: the endpoint(s) to benchmark, the question set, case selection, thresholds, audits and output. Give exactly one of endpoint or endpoints.",
    ...rest,
    properties: {
      $schema: { type: "string", description: "The JSON Schema this file follows (for editors)" },
      ...properties as Record<string, unknown>,
    },
  };
}

/**
 * The workflow schema as the shipped file holds it: two-space JSON with a final newline.
 *
 * @returns The file's text.
 */
export function workflowJsonSchemaText(): string {
  return JSON.stringify(workflowJsonSchema(), null, 2) + "\n";
}
