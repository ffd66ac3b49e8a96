/**
 * The one place that turns a command's failure into a message and an exit status.
 *
 * @module
 */
import { DatasetIntegrityError } from "../dataset/mod.ts";
import { describeOsError } from "../record/mod.ts";
import { HelpRequested, UsageError } from "./args.ts";

/**
 * Exit status of a command whose work completed (and met its thresholds) but whose run could not
 * be added to the SQLite run index: the run directory is whole, the index lacks it.
 */
export const EXIT_INDEX_FAILED = 4;

/** Options for `runMain`. */
export interface RunMainOptions {
  /** The usage line printed after a usage error. */
  usage: string;
  /**
   * Error classes that mean "fix the input" (exit 2), beside `UsageError`.
   * @default []
   */
  usageErrors?: (readonly (abstract new (...args: never[]) => Error)[] | undefined) | undefined;
}

/**
 * Runs a command's `main` with `Deno.args` and exits with its status. A thrown error prints one
 * `decibench: <message>` line and exits 2 for a usage-class error, 3 when the vendored dataset
 * fails its integrity check, and 1 otherwise. A raw OS error (`File exists (os error 17): mkdir
 * '…'`) is printed as a sentence naming the path.
 *
 * @param main The command; resolves to its exit status.
 * @param options Usage line and usage-class errors.
 * @returns Never: the process exits.
 */
export async function runMain(
  main: (args: string[]) => Promise<number>,
  options: RunMainOptions,
): Promise<never> {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(error.text);
      Deno.exit(0);
    }
    const message = describeOsError(error) ??
      (error instanceof Error ? error.message : String(error));
    console.error(`decibench: ${message}`);
    if (error instanceof UsageError) console.error(options.usage);
    const usage = error instanceof UsageError ||
      (options.usageErrors ?? []).some((kind) => error instanceof kind);
    Deno.exit(usage ? 2 : error instanceof DatasetIntegrityError ? 3 : 1);
  }
}
