/**
 * Loads and validates a workflow file.
 *
 * @module
 */
import { basename, dirname, extname, isAbsolute, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
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

/** Options for `validateWorkflow`. */
export interface ValidateWorkflowOptions {
  /**
   * The line of a field, given its path (`["endpoint", "baseUrl"]`), named in a message when known
   * (the loader passes one for JSON and YAML files).
   * @default undefined (no lines named)
   */
  lineOf?: ((path: readonly PropertyKey[]) => number | undefined) | undefined;
}

/**
 * Validates a workflow value, naming the file and field on failure. A relative `dataset.path` is
 * resolved against the folder of `file` (so `tickets.csv` beside the workflow file is found from
 * any working directory that `file` is relative to).
 *
 * @param value The default export of a workflow file, or the value of a JSON or YAML one.
 * @param file The file name for messages, and the base of a relative `dataset.path`.
 * @param options Where each field sits in the file, for messages.
 * @returns The workflow with defaults applied.
 * @throws {WorkflowError} When a field is missing, unknown or invalid.
 */
export function validateWorkflow(
  value: unknown,
  file: string,
  options: ValidateWorkflowOptions = {},
): Workflow {
  const result = WorkflowSchema.safeParse(value);
  if (result.success) {
    const workflow = result.data;
    if (workflow.dataset && !isAbsolute(workflow.dataset.path)) {
      workflow.dataset = { ...workflow.dataset, path: join(dirname(file), workflow.dataset.path) };
    }
    return workflow;
  }
  const at = (path: readonly PropertyKey[]): string => {
    const line = options.lineOf?.(path);
    return line === undefined ? "" : ` (line ${line})`;
  };
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length ? issue.path.join(".") : "(top level)";
    if (issue.code === "unrecognized_keys") {
      // Name each unknown key with its full path and the known key it most likely meant.
      const known = knownKeys(WorkflowSchema, issue.path);
      return issue.keys.map((key) => {
        const guess = closest(key, known);
        return `field "${field}"${at([...issue.path, key])} has an unknown key "${key}"${
          guess !== undefined ? ` (did you mean "${guess}"?)` : ""
        }`;
      }).join("; ");
    }
    if (issue.code === "invalid_value") {
      // A mistyped name (a metric, an engine, a question type): the one it most likely meant,
      // rather than every name there is.
      const given = valueAt(value, issue.path);
      const names = issue.values.filter((v): v is string => typeof v === "string");
      const guess = typeof given === "string" ? closest(given, names) : undefined;
      if (guess !== undefined) {
        return `field "${field}"${
          at(issue.path)
        }: "${given}" is not one of the ${names.length} allowed values (did you mean "${guess}"?)`;
      }
    }
    return `field "${field}"${at(issue.path)}: ${issue.message}`;
  });
  throw new WorkflowError(
    `Cannot load workflow "${file}": ${problems.join("; ")}; see docs/workflows.md`,
  );
}

/** The value at a path of the parsed input, or undefined. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
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

/** The extensions of workflow files that hold data (JSON or YAML) rather than a module. */
const DATA_EXTENSIONS = [".json", ".yaml", ".yml"] as const;

/** The workflows that come with decibench (`workflows/` of the package). */
const BUILT_IN_DIR = new URL("../../workflows/", import.meta.url);

/**
 * Where a workflow path points: the file itself when it exists, else, for a relative path such as
 * `workflows/reference.ts` or `reference`, the built-in workflow of that name.
 */
async function locate(path: string): Promise<string | undefined> {
  if (await isFile(path)) return path;
  if (isAbsolute(path) || BUILT_IN_DIR.protocol !== "file:") return undefined;
  const name = basename(path);
  const candidates = extname(name) === "" ? [`${name}.ts`, `${name}.yaml`, `${name}.json`] : [name];
  // Only a bare name or a path under workflows/ names a built-in workflow.
  if (path !== name && normalize(dirname(path)) !== "workflows") return undefined;
  for (const candidate of candidates) {
    const builtIn = fileURLToPath(new URL(candidate, BUILT_IN_DIR));
    if (await isFile(builtIn)) return builtIn;
  }
  return undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Loads and validates a workflow file: a TypeScript module whose default export is the workflow
 * (`export default defineWorkflow({...})`), or a JSON or YAML file holding the same object (a
 * top-level `$schema` key, which editors read, is ignored). A relative path that does not exist
 * in the working directory and names a built-in workflow (`workflows/reference.ts`, or just
 * `reference`) loads the one that comes with decibench.
 *
 * @param path Path of a workflow file (`.ts`, `.json`, `.yaml` or `.yml`).
 * @returns The validated workflow.
 * @throws {WorkflowError} When the file is missing, fails to import or parse, or is invalid.
 * @example
 * ```ts
 * import { loadWorkflow } from "./load.ts";
 * const workflow = await loadWorkflow("workflows/reference.ts");
 * if (workflow.endpoint?.reference === undefined) throw new Error("the built-in reference server");
 * ```
 */
export async function loadWorkflow(path: string): Promise<Workflow> {
  const found = await locate(path);
  if (found === undefined) {
    const directory = await Deno.stat(path).then((s) => s.isDirectory, () => false);
    throw new WorkflowError(
      directory
        ? `Cannot load workflow "${path}": not a file`
        : `Cannot load workflow "${path}": file not found; give a path such as workflows/llama.ts`,
    );
  }
  const extension = extname(found).toLowerCase();
  if ((DATA_EXTENSIONS as readonly string[]).includes(extension)) {
    return await loadDataWorkflow(found, extension === ".json" ? "JSON" : "YAML");
  }
  let mod: Record<string, unknown>;
  try {
    mod = await import(toFileUrl(found).href);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const detail = (message.split("\n")[0] ?? "").replace(/^SyntaxError: /, "");
    // Deno ends a parse error with "at file:///…/x.ts:LINE:COLUMN": name the place.
    const at = /at (file:\/\/\S+?):(\d+):(\d+)\s*$/.exec(message);
    if (at && /SyntaxError|could not be parsed/.test(message)) {
      throw new WorkflowError(
        `Cannot load workflow "${found}": syntax error at line ${at[2]}, column ${
          at[3]
        }: ${detail}`,
      );
    }
    throw new WorkflowError(`Cannot load workflow "${found}": import failed: ${detail}`);
  }
  if (!("default" in mod)) {
    throw new WorkflowError(
      `Cannot load workflow "${found}": no default export; end the file with export default defineWorkflow({...})`,
    );
  }
  return validateWorkflow(mod.default, found);
}

/** Reads a JSON or YAML workflow and validates it, naming the line of a bad field. */
async function loadDataWorkflow(path: string, format: "JSON" | "YAML"): Promise<Workflow> {
  const text = await Deno.readTextFile(path);
  // The YAML parser (loaded only for data workflows) also places the fields of a JSON file,
  // which is YAML too.
  const YAML = await import("yaml");
  const lines = new YAML.LineCounter();
  const document = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: true });
  let value: unknown;
  // The first syntax error the YAML parser found, with its place.
  const syntax = document.errors[0];
  const place = syntax?.linePos?.[0];
  const where = place ? ` at line ${place.line}, column ${place.col}` : "";
  if (format === "JSON") {
    try {
      value = JSON.parse(text);
    } catch (error) {
      const full = (error as Error).message;
      // V8 names the place as "(line L column C)" for most errors; else the YAML parser's.
      const v8 = /\(line (\d+) column (\d+)\)/.exec(full);
      const at = v8 ? ` at line ${v8[1]}, column ${v8[2]}` : where;
      const message = (full.split("\n")[0] ?? "").replace(/\s*\(line \d+ column \d+\)/, "");
      throw new WorkflowError(`Cannot load workflow "${path}": JSON syntax error${at}: ${message}`);
    }
  } else {
    if (syntax !== undefined) {
      const message = (syntax.message.split("\n")[0] ?? "").replace(
        / at line \d+, column \d+:?$/,
        "",
      );
      throw new WorkflowError(
        `Cannot load workflow "${path}": YAML syntax error${where}: ${message}`,
      );
    }
    value = document.toJS();
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value) && "$schema" in value) {
    const { $schema: _schema, ...rest } = value as Record<string, unknown>;
    value = rest;
  }
  const lineOf = (field: readonly PropertyKey[]): number | undefined => {
    if (field.length === 0) return undefined;
    const parent = field.length === 1
      ? document.contents
      : document.getIn(field.slice(0, -1) as unknown[], true);
    const last = field[field.length - 1];
    let start: number | undefined;
    if (YAML.isMap(parent)) {
      const pair = parent.items.find((p) => YAML.isScalar(p.key) && String(p.key.value) === last);
      start = pair && YAML.isNode(pair.key) ? pair.key.range?.[0] : undefined;
    } else if (YAML.isSeq(parent)) {
      const item = parent.items[Number(last)];
      start = YAML.isNode(item) ? item.range?.[0] : undefined;
    }
    return start === undefined ? undefined : lines.linePos(start).line;
  };
  return validateWorkflow(value, path, { lineOf });
}
