// Helpers for the tests that execute the notebooks with Jupyter (nbconvert and the Deno kernel,
// installed by scripts/test_deps.sh) and read what they showed.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./bench_cli_helpers.ts";

/** One output of an executed notebook's cell. */
export interface NotebookOutput {
  /** `stream`, `display_data`, `execute_result` or `error`. */
  output_type: string;
  /** A stream's name (`stdout`, `stderr`). */
  name?: string;
  /** An error's name. */
  ename?: string;
  /** An error's value. */
  evalue?: string;
  /** A stream's text. */
  text?: string | string[];
  /** Display data by MIME type. */
  data?: Record<string, string | string[]>;
}

/**
 * Joins a notebook's multi-line string.
 *
 * @param value A string, its lines, or nothing.
 * @returns The text.
 */
export function notebookText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join("") : value ?? "";
}

/**
 * Whether `jupyter nbconvert` can be started.
 *
 * @returns True when it runs.
 */
export async function jupyterAvailable(): Promise<boolean> {
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

/** Asserts Jupyter is installed, naming the script that installs it. */
export async function assertJupyter(): Promise<void> {
  assert.ok(
    await jupyterAvailable(),
    "jupyter nbconvert is missing: run `bash scripts/test_deps.sh` (or `deno task test`), which installs it and the Deno kernel",
  );
}

/**
 * Executes `notebooks/<name>.ipynb` top to bottom with the Deno kernel.
 *
 * @param name The notebook's name without `.ipynb`.
 * @param outDir Where nbconvert writes the executed copy.
 * @param env Environment variables (e.g. `DECIBENCH_RUN_DIR`).
 * @returns The outputs of all its cells, in order.
 * @throws {AssertionError} When nbconvert fails.
 */
export async function executeNotebook(
  name: string,
  outDir: string,
  env: Record<string, string>,
): Promise<NotebookOutput[]> {
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
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(result.stderr);
  assert.ok(result.success, `${name}.ipynb failed to execute:\n${stderr.slice(-3000)}`);
  const notebook = JSON.parse(await Deno.readTextFile(join(outDir, `${name}.ipynb`)));
  return notebook.cells.flatMap((cell: { outputs?: NotebookOutput[] }) => cell.outputs ?? []);
}

/**
 * The plain-text display data a notebook showed (its summary lines).
 *
 * @param outputs Its outputs.
 * @returns Their text, joined.
 */
export function shownText(outputs: readonly NotebookOutput[]): string {
  return outputs.map((o) => notebookText(o.data?.["text/plain"])).join("");
}

/**
 * Executes a notebook that reads a run and shows its run line (`… decisions, status …`), once
 * more when that line or another expected text is missing: the Deno kernel can publish a display
 * after nbconvert has seen its cell end, which then drops it (seen under the parallel suite), so
 * only a notebook that never shows it fails.
 *
 * @param name The notebook's name without `.ipynb`.
 * @param env Environment variables (e.g. `DECIBENCH_RUN_DIR`).
 * @param expected More texts it must show (plain text or Markdown). @default none
 * @returns The outputs of all its cells, in order.
 * @throws {AssertionError} When nbconvert fails.
 */
export async function executeRunNotebook(
  name: string,
  env: Record<string, string>,
  expected: readonly RegExp[] = [],
): Promise<NotebookOutput[]> {
  const complete = (outputs: readonly NotebookOutput[]) => {
    const said = outputs.map((o) =>
      notebookText(o.data?.["text/plain"]) + "\n" + notebookText(o.data?.["text/markdown"])
    ).join("\n");
    return [/decisions, status \w+/, ...expected].every((re) => re.test(said));
  };
  const outputs = await executeNotebook(name, await Deno.makeTempDir(), env);
  if (complete(outputs)) return outputs;
  return await executeNotebook(name, await Deno.makeTempDir(), env);
}

/**
 * The error outputs of a notebook: error cells and anything written to stderr.
 *
 * @param outputs Its outputs.
 * @returns One line per error.
 */
export function notebookErrors(outputs: readonly NotebookOutput[]): string[] {
  return outputs.filter((o) =>
    o.output_type === "error" || (o.output_type === "stream" && o.name === "stderr")
  ).map((o) => `${o.ename ?? o.name}: ${o.evalue ?? notebookText(o.text)}`);
}
