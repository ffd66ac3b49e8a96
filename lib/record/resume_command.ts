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

/**
 * The error a run ends with when a write to its directory fails for lack of space: the reason
 * and the pasteable command that finishes the run once there is space (with the index flag the
 * run used). Other errors are returned unchanged.
 *
 * @param error What a write threw.
 * @param dir The run directory.
 * @param options The index the run used.
 * @returns An `Error` saying what to do for a full disk; otherwise `error` itself.
 * @example
 * ```ts
 * import { writeFailure } from "./resume_command.ts";
 * const full = Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
 * console.log(String(writeFailure(full, "runs/r1", { db: "" })));
 * ```
 */
export function writeFailure(
  error: unknown,
  dir: string,
  options: ResumeCommandOptions = {},
): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as Error & { code?: unknown }).code;
  const full = code === "ENOSPC" || /No space left on device|os error 28|disk is full/i.test(
    error.message,
  );
  if (!full) return error;
  const hint = resumeCommand(dir, options);
  if (error.message.includes(hint)) return error;
  const reason = error.message.replace(/; every case answered before[\s\S]*$/, "");
  return new Error(
    `Cannot write the run "${dir}": ${reason}; every case answered before this one is kept — ` +
      `free disk space, then finish the run with ${hint}`,
    { cause: error },
  );
}
