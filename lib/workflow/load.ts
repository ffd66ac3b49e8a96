/**
 * Loads and validates a workflow file.
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
import { closest } from "../suggest.ts";
import { toFileUrl } from "./_path.ts";
import { type Workflow, WorkflowSchema } from "./schemas.ts";

/** A workflow file could not be used. */
export class WorkflowError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong and how to fix it.
   */
  constructor(message: string) {
    super(message);
    this.name = "WorkflowError";
  }
}

/**
 * Validates a workflow value, naming the file and field on failure. A relative `dataset.path` is
 * resolved against the folder of `file` (so `tickets.csv` beside the workflow file is found from
 * any working directory that `file` is relative to).
 *
 * @param value The default export of a workflow file.
 * @param file The file name for messages, and the base of a relative `dataset.path`.
 * @returns The workflow with defaults applied.
 * @throws {WorkflowError} When a field is missing, unknown or invalid.
 */
export function validateWorkflow(value: unknown, file: string): Workflow {
  const result = WorkflowSchema.safeParse(value);
  if (result.success) {
    const workflow = result.data;
    if (workflow.dataset && !isAbsolute(workflow.dataset.path)) {
      workflow.dataset = { ...workflow.dataset, path: join(dirname(file), workflow.dataset.path) };
    }
    return workflow;
  }
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join(".") : "(top level)";
    if (issue.code === "unrecognized_keys") {
      // Name each unknown key with its full path and the known key it most likely meant.
      const known = knownKeys(WorkflowSchema, issue.path);
      return issue.keys.map((key) => {
        const guess = closest(key, known);
        return `field "${field}" has an unknown key "${key}"${
          guess !== undefined ? ` (did you mean "${guess}"?)` : ""
        }`;
      }).join("; ");
    }
    return `field "${field}": ${issue.message}`;
  });
  throw new WorkflowError(
    `Cannot load workflow "${file}": ${problems.join("; ")}; see docs/workflows.md`,
  );
}

/** The zod definition of a schema (zod 4 keeps it at `_zod.def`). */
interface SchemaDef {
  type: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  innerType?: { _zod: { def: SchemaDef } };
  element?: { _zod: { def: SchemaDef } };
  options?: { _zod: { def: SchemaDef } }[];
  in?: { _zod: { def: SchemaDef } };
}

/** The keys an object at `path` of the schema may have (every option's, for a union). */
function knownKeys(schema: unknown, path: readonly PropertyKey[]): string[] {
  const defsAt = (def: SchemaDef, rest: readonly PropertyKey[]): SchemaDef[] => {
    if (def.innerType) return defsAt(def.innerType._zod.def, rest);
    if (def.type === "pipe" && def.in) return defsAt(def.in._zod.def, rest);
    if (def.type === "union" && def.options) {
      return def.options.flatMap((o) => defsAt(o._zod.def, rest));
    }
    if (rest.length === 0) return [def];
    const [head, ...tail] = rest;
    if (def.type === "array" && def.element) return defsAt(def.element._zod.def, tail);
    const child = def.type === "object" ? def.shape?.[String(head)] : undefined;
    return child ? defsAt(child._zod.def, tail) : [];
  };
  const root = (schema as { _zod?: { def: SchemaDef } })._zod?.def;
  if (!root) return [];
  return [...new Set(defsAt(root, path).flatMap((d) => Object.keys(d.shape ?? {})))];
}

/**
 * Imports a workflow file and validates its default export.
 *
 * @param path Path of a TypeScript workflow file.
 * @returns The validated workflow.
 * @throws {WorkflowError} When the file is missing, fails to import, or is invalid.
 */
export async function loadWorkflow(path: string): Promise<Workflow> {
  try {
    const stat = await Deno.stat(path);
    if (!stat.isFile) throw new WorkflowError(`Cannot load workflow "${path}": not a file`);
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    throw new WorkflowError(
      `Cannot load workflow "${path}": file not found; give a path such as workflows/llama.ts`,
    );
  }
  let mod: Record<string, unknown>;
  try {
    mod = await import(toFileUrl(path).href);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const detail = (message.split("\n")[0] ?? "").replace(/^SyntaxError: /, "");
    // Deno ends a parse error with "at file:///…/x.ts:LINE:COLUMN": name the place.
    const at = /at (file:\/\/\S+?):(\d+):(\d+)\s*$/.exec(message);
    if (at && /SyntaxError|could not be parsed/.test(message)) {
      throw new WorkflowError(
        `Cannot load workflow "${path}": syntax error at line ${at[2]}, column ${at[3]}: ${detail}`,
      );
    }
    throw new WorkflowError(`Cannot load workflow "${path}": import failed: ${detail}`);
  }
  if (!("default" in mod)) {
    throw new WorkflowError(
      `Cannot load workflow "${path}": no default export; end the file with export default defineWorkflow({...})`,
    );
  }
  return validateWorkflow(mod.default, path);
}
