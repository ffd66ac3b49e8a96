/**
 * Loads and validates a workflow file.
 *
 * @module
 */
import { dirname, isAbsolute, join } from "node:path";
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
    const keys = "keys" in issue && Array.isArray(issue.keys)
      ? ` ${issue.keys.map((k: unknown) => `"${String(k)}"`).join(", ")}`
      : "";
    return `field "${field}": ${issue.message}${keys}`;
  });
  throw new WorkflowError(
    `Cannot load workflow "${file}": ${problems.join("; ")}; see README "Workflow files"`,
  );
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
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new WorkflowError(`Cannot load workflow "${path}": import failed: ${detail}`);
  }
  if (!("default" in mod)) {
    throw new WorkflowError(
      `Cannot load workflow "${path}": no default export; end the file with export default defineWorkflow({...})`,
    );
  }
  return validateWorkflow(mod.default, path);
}
