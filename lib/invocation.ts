/**
 * How a command is typed, for messages and `--help`: `deno task bench` in a clone, `decibench bench`
 * when the installed `decibench` command ran it (its dispatcher sets `DECIBENCH_CLI`).
 *
 * @module
 */

/** The environment variable the `decibench` dispatcher sets for the command it runs. */
export const CLI_ENV = "DECIBENCH_CLI";

/**
 * The words that run a command.
 *
 * @param name The command, e.g. `bench`.
 * @returns `decibench bench` under the installed command, else `deno task bench`.
 * @example
 * ```ts
 * import { commandOf } from "./invocation.ts";
 * const typed = commandOf("bench"); // "deno task bench", or "decibench bench" when installed
 * if (!typed.endsWith(" bench")) throw new Error("names the command");
 * ```
 */
export function commandOf(name: string): string {
  let cli: string | undefined;
  try {
    cli = Deno.env.get(CLI_ENV);
  } catch {
    // No permission to read the environment: the task form.
  }
  return cli ? `${cli} ${name}` : `deno task ${name}`;
}
