// Helpers for the run-record end-to-end tests: real `deno run -A scripts/<x>.ts` subprocesses
// over loopback, their JSON event streams, and the decisions they leave on disk.
import type { RunJson } from "../lib/record/mod.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Repository root. */
export const ROOT: string = fileURLToPath(new URL("../", import.meta.url));

/** A running script whose stdout is read line by line. */
export interface Spawned {
  /** The child process. */
  child: Deno.ChildProcess;
  /** Stdout lines as they arrive. */
  lines: AsyncIterableIterator<string>;
  /** Resolves to everything written to stderr once the process ends. */
  stderr: Promise<string>;
}

async function* splitLines(stream: ReadableStream<Uint8Array>): AsyncIterableIterator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
    }
  }
  if (buffer) yield buffer;
}

/**
 * Starts `deno run -A scripts/<script> ...args` from the repository root.
 *
 * @param script Script file name under scripts/.
 * @param args Arguments.
 * @param env Extra environment variables (added to the inherited ones).
 * @returns The running process.
 */
export function spawnScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Spawned {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `scripts/${script}`, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  return { child, lines: splitLines(child.stdout), stderr };
}

/**
 * Fails a test whose `bench.ts` run may have written the checkout's own runs/decibench.db: run
 * from the repository root, a bench run that names no index (`--db <temp file>` or `--no-db`)
 * adds itself there. Runs refused before they start (exit 2, 3), `--help` and `--dry-run` write
 * no index.
 *
 * @param script Script file name under scripts/.
 * @param args Arguments.
 * @param code The run's exit status.
 * @throws {TypeError} When a bench run that got under way named no index.
 */
export function assertOwnIndex(script: string, args: readonly string[], code: number): void {
  if (script !== "bench.ts" || code === 2 || code === 3) return;
  if (args.some((a) => /^--(?:no-db|db|help|dry-run)(?:=|$)/.test(a))) return;
  throw new TypeError(
    `Cannot run bench.ts ${
      args.join(" ")
    } in a test without --db or --no-db: it writes the checkout's runs/decibench.db; pass --db <temp file> or --no-db`,
  );
}

/** Output of a finished script. */
export interface Finished {
  /** Exit code. */
  code: number;
  /** Stdout lines. */
  lines: string[];
  /** Stderr text. */
  stderr: string;
}

/**
 * Runs a script to the end.
 *
 * @param script Script file name under scripts/.
 * @param args Arguments.
 * @param env Extra environment variables.
 * @returns Exit code, stdout lines and stderr.
 * @throws {TypeError} When a bench run that got under way named no index ({@linkcode assertOwnIndex}).
 */
export async function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Finished> {
  const run = spawnScript(script, args, env);
  const lines: string[] = [];
  for await (const line of run.lines) lines.push(line);
  const { code } = await run.child.status;
  assertOwnIndex(script, args, code);
  return { code, lines, stderr: await run.stderr };
}

/** A JSON event of `bench --json`. */
export type BenchEvent = { event: string } & Record<string, unknown>;

/**
 * Parses `--json` output: every stdout line must be one JSON event.
 *
 * @param lines Stdout lines.
 * @returns The events.
 * @throws {SyntaxError} When a line is not JSON (something else reached stdout).
 */
export function events(lines: readonly string[]): BenchEvent[] {
  return lines.map((line) => {
    const value = JSON.parse(line);
    if (typeof value?.event !== "string") throw new SyntaxError(`not an event: ${line}`);
    return value as BenchEvent;
  });
}

/**
 * Writes a workflow file with no thresholds into `dir`.
 *
 * @param dir Directory.
 * @param name Workflow name.
 * @returns The file path.
 */
export async function writeWorkflow(dir: string, name = "records"): Promise<string> {
  const path = `${dir}/${name}.ts`;
  await Deno.writeTextFile(
    path,
    `export default {
  name: ${JSON.stringify(name)},
  endpoint: { name: "under-test", baseUrl: "http://127.0.0.1:9", model: "decider", retries: 2 },
  parallel: 2,
};
`,
  );
  return path;
}

/**
 * Reads a run directory's decisions, each without its `latency_ms` (the one field that differs
 * between two runs of the same cases), sorted by case id: `decisions.jsonl` lists cases in the
 * order they were answered, which differs between runs with requests in parallel (a case's
 * decisions keep their question order).
 *
 * @param dir Run directory.
 * @returns The decisions by case id.
 */
export async function decisionsWithoutLatency(dir: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(`${dir}/decisions.jsonl`);
  const decisions = text.split("\n").filter((l) => l.trim()).map((l) => {
    const { latency_ms: _, ...rest } = JSON.parse(l);
    return rest as Record<string, unknown>;
  });
  // A stable sort: the questions of one case stay in their order.
  return decisions.sort((a, b) => {
    const [x, y] = [String(a.case), String(b.case)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/**
 * Reads `run.json`.
 *
 * @param dir Run directory.
 * @returns The parsed record.
 */
export async function readRunJson(dir: string): Promise<RunJson> {
  return JSON.parse(await Deno.readTextFile(`${dir}/run.json`));
}

/**
 * The summary of a run without its latency percentiles.
 *
 * @param run `run.json` as parsed.
 * @returns The summary minus `latency`.
 */
export function summaryWithoutLatency(run: RunJson): Record<string, unknown> {
  const { latency: _, ...rest } = run.summary ?? {};
  return rest;
}

/**
 * A port that was free a moment ago.
 *
 * @returns The port number.
 */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts `scripts/serve.ts` and waits until it listens.
 *
 * @param args Arguments (port, predictor, latency).
 * @returns The process and the base URL it printed.
 * @throws {Error} When it exits before listening.
 */
export async function startServe(args: string[]): Promise<Spawned & { url: string }> {
  const serve = spawnScript("serve.ts", args);
  const first = await serve.lines.next();
  const url = first.done ? undefined : /listening on (http:\/\/\S+)/.exec(first.value)?.[1];
  if (url === undefined) {
    throw new Error(`serve did not start: ${first.value ?? ""} ${await serve.stderr}`);
  }
  return { ...serve, url };
}

/**
 * Every file under a directory, as text.
 *
 * @param dir Directory.
 * @returns Path → content.
 */
export async function filesUnder(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) { for (const [p, t] of await filesUnder(path)) out.set(p, t); }
    else out.set(path, await Deno.readTextFile(path));
  }
  return out;
}

/**
 * Starts `deno task <task> ...args` in a process group of its own (`setsid`), the way a terminal
 * runs a foreground command, so that a test can send a signal to the whole group as Ctrl+C does.
 *
 * @param task The deno.json task, e.g. `bench`.
 * @param args Arguments.
 * @param env Extra environment variables.
 * @returns The running process; its pid is the group id.
 */
export function spawnTaskGroup(
  task: string,
  args: string[],
  env: Record<string, string> = {},
): Spawned {
  const child = new Deno.Command("setsid", {
    args: [Deno.execPath(), "task", task, ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  return { child, lines: splitLines(child.stdout), stderr };
}

/**
 * Sends SIGINT to a whole process group, as a terminal does on Ctrl+C.
 *
 * @param child The group leader started by `spawnTaskGroup`.
 */
export function ctrlC(child: Deno.ChildProcess): void {
  Deno.kill(-child.pid, "SIGINT");
}
