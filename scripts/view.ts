/**
 * `deno task view [--port N] [--hostname H] [--db PATH] [--runs DIR] [--open]`: a local, read-only web
 * app over the run index and the run directories, on 127.0.0.1:8700 by default. Every asset is
 * served locally; nothing is written. Ctrl+C stops it. Exit 2 for a usage error or a port in use.
 *
 * @module
 */
import {
  type CommandSpec,
  intFlag,
  parseCommand,
  pathFlag,
  stringFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { DEFAULT_INDEX_PATH } from "../lib/record/mod.ts";
import { startView } from "../lib/view/mod.ts";

const COMMAND: CommandSpec = {
  name: "view",
  summary:
    `A local, read-only web app over the run index and the run directories: the runs (sort, filter,
tick two to compare, live progress), one run (cards, charts, tables, thresholds, errors, a decision
explorer), the paired comparison of two runs, and the same data as JSON under /api/. Every asset is
served locally; nothing is written.`,
  options: {
    port: {
      type: "string",
      value: "N",
      help: "port to listen on (default 8700; 0 picks a free one)",
    },
    hostname: {
      type: "string",
      value: "H",
      help: "address to bind (default 127.0.0.1: this machine only)",
    },
    db: { type: "string", value: "PATH", help: `the SQLite index (default ${DEFAULT_INDEX_PATH})` },
    runs: { type: "string", value: "DIR", help: "the folder of run directories (default runs)" },
    open: { type: "boolean", help: "open the view in the browser" },
  },
  more: "Exit status: 0 stopped with Ctrl+C; 2 a usage error or a port in use.",
};

/**
 * Opens the view in the browser, or says why it cannot (and the URL to open): on Linux and the
 * BSDs without a graphical display (`DISPLAY`, `WAYLAND_DISPLAY`) or `BROWSER`, no opener is
 * tried (it could start a text browser in this terminal); an opener missing or failing is named
 * with its exit status and first line of error output.
 */
async function openBrowser(url: string): Promise<void> {
  const cannot = (why: string) =>
    console.error(`decibench: Cannot open a browser (${why}); open ${url} in one`);
  const os = Deno.build.os;
  const env = (name: string) => (Deno.env.get(name) ?? "").trim();
  if (
    os !== "darwin" && os !== "windows" && !env("DISPLAY") && !env("WAYLAND_DISPLAY") &&
    !env("BROWSER")
  ) {
    cannot("no graphical display: DISPLAY, WAYLAND_DISPLAY and BROWSER are unset");
    return;
  }
  const command = os === "darwin"
    ? ["open", url]
    : os === "windows"
    ? ["cmd", "/c", "start", "", url]
    : ["xdg-open", url];
  const name = command[0] as string;
  let result: Deno.CommandOutput;
  try {
    result = await new Deno.Command(name, {
      args: command.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch {
    cannot(`${name} is not available`);
    return;
  }
  if (!result.success) {
    const said = new TextDecoder().decode(result.stderr).trim().split("\n")[0]?.slice(0, 200);
    cannot(`${name} exited ${result.code}${said ? `: ${said}` : ""}`);
  }
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length) {
    throw new UsageError(`Cannot start the view: unexpected argument "${positionals[0]}"`);
  }
  const port = intFlag(values.port, "port", 0, 65535) ?? 8700;
  const hostname = stringFlag(values.hostname) ?? "127.0.0.1";
  const dbPath = stringFlag(values.db) ?? DEFAULT_INDEX_PATH;
  const runsDir = pathFlag(values.runs, "runs") ?? "runs";
  const controller = new AbortController();
  let view;
  try {
    view = await startView({
      port,
      hostname,
      dbPath,
      runsDir,
      datasetDir: Deno.env.get("DECIBENCH_DATASET_DIR"),
      signal: controller.signal,
    });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new UsageError(
        `Cannot start the view: port ${port} on ${hostname} is in use; pass another --port`,
      );
    }
    throw error;
  }
  const stop = () => controller.abort();
  Deno.addSignalListener("SIGINT", stop);
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", stop);
  const local = /^127\.\d+\.\d+\.\d+$/.test(hostname) ||
    ["localhost", "::1", "[::1]"].includes(hostname);
  console.log(`decibench view  ${view.url}`);
  console.log(
    local
      ? `listening on ${view.hostname}:${view.port} only (this machine); read-only, offline`
      : `listening on ${view.hostname}:${view.port} with no authentication: anyone who can reach port ${view.port} reads every run (the index and the run directories); read-only, offline`,
  );
  console.log(`index ${dbPath || "(none)"} · runs ${runsDir || "(none)"} · Ctrl+C to stop`);
  if (values.open === true) await openBrowser(view.url);
  await view.finished;
  return 0;
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
