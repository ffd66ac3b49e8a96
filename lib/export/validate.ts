/**
 * Checks exports against the vendored schemas (`vendor/schemas/`, with their licences): the
 * Hugging Face `.eval_results/*.yaml` format and Every Eval Ever's aggregate and instance-level
 * schemas. Every export is checked before it is written, so a file decibench writes always
 * validates.
 *
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import evalResultsSchema from "../../vendor/schemas/hf-eval-results/eval_results.schema.json" with {
  type: "json",
};
import eeeSchema from "../../vendor/schemas/every-eval-ever/eval.schema.json" with {
  type: "json",
};
import eeeInstanceSchema from "../../vendor/schemas/every-eval-ever/instance_level_eval.schema.json" with {
  type: "json",
};

/** The schemas exports are checked against. */
export type ExportSchemaName = "eval-results" | "every-eval-ever" | "every-eval-ever-instance";

const SCHEMAS: Readonly<Record<ExportSchemaName, object>> = {
  "eval-results": evalResultsSchema,
  "every-eval-ever": eeeSchema,
  "every-eval-ever-instance": eeeInstanceSchema,
};

let compiled: Map<ExportSchemaName, ValidateFunction> | null = null;

function validator(name: ExportSchemaName): ValidateFunction {
  if (!compiled) {
    // The published schemas put `required` in if/then branches (not strict-clean) and carry a
    // `version` annotation at their root.
    const ajv = new Ajv({
      allErrors: true,
      strict: true,
      strictTypes: false,
      strictRequired: false,
    });
    ajv.addKeyword("version");
    compiled = new Map();
    for (const [key, schema] of Object.entries(SCHEMAS)) {
      compiled.set(key as ExportSchemaName, ajv.compile(schema));
    }
  }
  return compiled.get(name) as ValidateFunction;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath || "(root)";
  const extra = error.keyword === "additionalProperties"
    ? ` "${String((error.params as { additionalProperty?: string }).additionalProperty)}"`
    : "";
  return `${where} ${error.message ?? "is invalid"}${extra}`;
}

/**
 * Validates a value against one of the vendored schemas.
 *
 * @param name Which schema.
 * @param value The parsed export (the YAML's data, the aggregate JSON, or one instance row).
 * @returns The problems, e.g. `/0/dataset must have required property 'task_id'`; [] when valid.
 * @example
 * ```ts
 * import { schemaProblems } from "./validate.ts";
 * const problems = schemaProblems("eval-results", [{ dataset: { id: "a/b" }, value: 1 }]);
 * if (!problems[0]?.includes("task_id")) throw new Error("expected a missing task_id");
 * ```
 */
export function schemaProblems(name: ExportSchemaName, value: unknown): string[] {
  const validate = validator(name);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describe);
}

/**
 * Throws when a value does not validate: an export that fails its schema is a decibench bug,
 * never written.
 *
 * @param name Which schema.
 * @param value The export.
 * @param what What is being exported, for the message (e.g. `run "x" as eval-results`).
 * @throws {Error} Naming the first problems.
 */
export function assertValid(name: ExportSchemaName, value: unknown, what: string): void {
  const problems = schemaProblems(name, value);
  if (problems.length) {
    throw new Error(
      `Cannot export ${what}: the result does not match the ${name} schema (${
        problems.slice(0, 3).join("; ")
      }); please report this decibench bug`,
    );
  }
}
