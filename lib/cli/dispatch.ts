/**
 * The `decibench` command (`cli.ts`): `decibench <command> [args]` runs one of the commands the
 * `deno task`s run, from any folder. Each command is the same script its task runs, started as
 * its own Deno process with the package's `deno.json` (its imports, including
 * `decibench/workflow` for TypeScript workflows outside the package), so a command behaves the
 * same either way; only its messages say `decibench bench` where a task's say `deno task bench`.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { CLI_ENV } from "../invocation.ts";
import { closest } from "../suggest.ts";
import { TOOL_VERSION } from "../version.ts";

/** One command of `decibench`: the script of the `deno task` of the same name. */
export interface CliCommand {
  /** What is typed after `decibench`, and the name of its `deno task`. */
  name: string;
  /** The script that runs it, relative to the package root. */
  script: string;
  /** One line for `decibench --help`. */
  summary: string;
}

/**
 * The commands, in the order `decibench --help` lists them. Each is a `deno task` of the same
 * name with the same script (a test holds them equal); the maintainers' tasks (`perf`, `schema`,
 * `test`, `ok`) are not commands.
 */
export const CLI_COMMANDS: readonly CliCommand[] = [
  {
    name: "bench",
    script: "scripts/bench.ts",
    summary: "benchmark a decision model on a workflow (default: the built-in reference server)",
  },
  {
    name: "compare",
    script: "scripts/compare.ts",
    summary: "compare two runs on their shared decisions, with paired intervals",
  },
  {
    name: "view",
    script: "scripts/view.ts",
    summary: "browse the runs of ./runs in a local, read-only web app",
  },
  {
    name: "export",
    script: "scripts/export.ts",
    summary: "write a run as Hugging Face eval results, Every Eval Ever files or CSV",
  },
  {
    name: "live",
    script: "scripts/live.ts",
    summary: "watch a serving decision model, one case of a question set at a time",
  },
  {
    name: "serve",
    script: "scripts/serve.ts",
    summary: "start the reference server (System One, pcdServer, hosted envelopes)",
  },
  {
    name: "audit",
    script: "scripts/audit.ts",
    summary: "ask a judge model versioned checks about assistant transcripts",
  },
  {
    name: "gate",
    script: "scripts/gate.ts",
    summary: "the decision gate: pass, fail or undecided per case of a question set",
  },
  {
    name: "policy",
    script: "scripts/policy.ts",
    summary: "choose each lane's bar on a labelled run, with a stated guarantee (policy.json)",
  },
  {
    name: "sweep",
    script: "scripts/sweep.ts",
    summary: "sweep pass bars over labelled yes/no items, per lane",
  },
  {
    name: "train",
    script: "scripts/train.ts",
    summary: "fit the reference server's model on the vendored train split",
  },
  {
    name: "cache",
    script: "scripts/cache.ts",
    summary: "the request cache: its size, or prune replies older than an age",
  },
  {
    name: "vendor",
    script: "scripts/vendor.ts",
    summary: "regenerate the vendored Typed Decisions files from the pinned Parquet",
  },
];

/** The package root: the folder of `deno.json`, `cli.ts` and `scripts/`. */
const ROOT = new URL("../../", import.meta.url);

/**
 * The text of `decibench --help`.
 *
 * @returns Usage, the commands with one line each, and where to read more.
 */
export function cliHelp(): string {
  const width = Math.max(...CLI_COMMANDS.map((c) => c.name.length)) + 2;
  const commands = CLI_COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return [
    "Usage: decibench <command> [args]",
    "Benchmark decision models (System One, pcdServer) on Typed Decisions or your own question " +
    "set.\nRuns go to ./runs/ of the current folder.",
    `Commands:\n${commands.join("\n")}`,
    "decibench <command> --help lists a command's options; decibench --version prints the version.",
  ].join("\n\n");
}

/** Options for `runCli`. */
export interface RunCliOptions {
  /**
   * Where the command's output goes for `--help`, `--version` and usage errors (tests capture it).
   * @default console.log / console.error
   */
  print?: { out(text: string): void; err(text: string): void } | undefined;
}

/**
 * Runs `decibench <command> [args]`: the command's script as a Deno process of its own, with the
 * package's configuration, the terminal and the working directory handed over, and its exit
 * status returned. Ctrl+C reaches the command (this process waits for it); SIGTERM is passed on.
 *
 * @param args The arguments after `decibench`.
 * @param options Where help and usage errors are printed.
 * @returns The exit status: the command's, 0 for `--help` and `--version`, 2 for no or an unknown
 *   command.
 * @example
 * ```ts
 * import { runCli } from "./dispatch.ts";
 * const lines: string[] = [];
 * const status = await runCli(["--help"], { print: { out: (t) => lines.push(t), err: () => {} } });
 * if (status !== 0 || !lines[0]?.includes("bench")) throw new Error("lists the commands");
 * ```
 */
export async function runCli(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<number> {
  const print = options.print ?? { out: console.log, err: console.error };
  const [first, ...rest] = args;
  if (first === undefined) {
    print.err(cliHelp());
    return 2;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    if (first === "help" && rest[0] !== undefined) {
      return await runCli([rest[0], "--help"], options);
    }
    print.out(cliHelp());
    return 0;
  }
  if (first === "--version" || first === "-V") {
    print.out(`decibench ${TOOL_VERSION}`);
    return 0;
  }
  const command = CLI_COMMANDS.find((c) => c.name === first);
  if (command === undefined) {
    const guess = closest(first.replace(/^-+/, ""), CLI_COMMANDS.map((c) => c.name));
    const hint = guess !== undefined
      ? `did you mean "${guess}"?`
      : "run decibench --help for the commands";
    print.err(`decibench: Cannot run "${first}": no such command; ${hint}`);
    print.err(
      `usage: decibench <command> [args]  (commands: ${
        CLI_COMMANDS.map((c) => c.name).join(", ")
      })`,
    );
    return 2;
  }
  return await runCommand(command, rest);
}

/** A file URL as a path, any other URL (a package served over https) as it is. */
function location(url: URL): string {
  return url.protocol === "file:" ? fileURLToPath(url) : url.href;
}

/** Runs one command's script in a Deno process of its own and returns its exit status. */
async function runCommand(command: CliCommand, args: readonly string[]): Promise<number> {
  const config = ROOT.protocol === "file:"
    ? ["--config", location(new URL("deno.json", ROOT))]
    : [];
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...config,
      location(new URL(command.script, ROOT)),
      ...args,
    ],
    env: { [CLI_ENV]: "decibench" },
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  // Ctrl+C goes to the whole foreground process group, so the command gets it itself: this process
  // only waits. A SIGTERM sent to this process alone is passed on.
  const ignore = (): void => {};
  const forward = (): void => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
  };
  const windows = Deno.build.os === "windows";
  if (!windows) {
    Deno.addSignalListener("SIGINT", ignore);
    Deno.addSignalListener("SIGTERM", forward);
  }
  try {
    const status = await child.status;
    return status.code;
  } finally {
    if (!windows) {
      Deno.removeSignalListener("SIGINT", ignore);
      Deno.removeSignalListener("SIGTERM", forward);
    }
  }
}
