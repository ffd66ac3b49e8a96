/**
 * The command that finishes a run, printed in every "finish it with …" hint: pasted into a shell
 * in the project folder, it works.
 *
 * @module
 */
import { commandOf } from "../invocation.ts";

/**
 * Quotes one word for a POSIX shell, only when it needs it.
 *
 * @param word A path or value.
 * @returns The word as is when it is safe, else in single quotes.
 * @example
 * ```ts
 * import { shellQuote } from "./resume_command.ts";
 * shellQuote("runs/a-1"); // "runs/a-1"
 * shellQuote("my runs/a"); // "'my runs/a'"
 * ```
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Options for `resumeCommand`. */
export interface ResumeCommandOptions {
  /**
   * The SQLite index the run was written to: `""` for none (`--no-db`), undefined for the default.
   * @default undefined
   */
  db?: string | undefined;
  /** The default index path (not repeated in the command). @default "runs/decibench.db" */
  defaultDb?: string;
}

/**
 * `deno task bench --resume DIR` (`decibench bench …` under the installed command; plus the index flag when the run used another index): the run
 * directory records everything else (workflow file, base URL, model, parallel, case selection).
 *
 * @param dir The run directory.
 * @param options The index the run used.
 * @returns The command.
 * @example
 * ```ts
 * import { resumeCommand } from "./resume_command.ts";
 * resumeCommand("runs/r1"); // "deno task bench --resume runs/r1"
 * resumeCommand("runs/r1", { db: "" }); // "deno task bench --resume runs/r1 --no-db"
 * ```
 */
export function resumeCommand(dir: string, options: ResumeCommandOptions = {}): string {
  const defaultDb = options.defaultDb ?? "runs/decibench.db";
  const db = options.db === undefined || options.db === defaultDb
    ? ""
    : options.db === ""
    ? " --no-db"
    : ` --db ${shellQuote(options.db)}`;
  return `${commandOf("bench")} --resume ${shellQuote(dir)}${db}`;
}
