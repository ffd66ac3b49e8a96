/**
 * `deno task bundle`: builds the bundle `deno task bench` starts from (`.cache/bundle-<id>/`, see
 * `lib/cli/bundle.ts`) and prints where it is. Runs rebuild it by themselves, in the background,
 * whenever a source changed; this command does it now, for a quick first run or a measurement.
 *
 * Exit status: 0 built; 1 the build failed (the message says why); 2 usage error.
 *
 * @module
 */
import { type CommandSpec, parseCommand, usageLine } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { releaseLock } from "../lib/cli/bundle.ts";
import { buildBundle } from "../lib/cli/bundle_build.ts";

const COMMAND: CommandSpec = {
  name: "bundle",
  args: "",
  summary:
    `Bundle the modules of deno task bench into .cache/ so that runs start sooner; runs use the
bundle only while every source it was built from is unchanged, and rebuild it in the background
otherwise.`,
  options: {
    background: {
      type: "boolean",
      help: "build quietly and release the lock a run took for this build (runs use this)",
    },
  },
  more: "Exit status: 0 built; 1 the build failed; 2 usage error.",
};

async function main(args: string[]): Promise<number> {
  const { values } = parseCommand(args, COMMAND);
  const started = performance.now();
  try {
    const built = await buildBundle();
    if (values.background !== true) {
      console.log(
        `bundle  ${built.dir.pathname} (${built.inputs} source files, ${
          Math.round(performance.now() - started)
        } ms)`,
      );
    }
    return 0;
  } finally {
    if (values.background === true) releaseLock();
  }
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
