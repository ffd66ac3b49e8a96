/**
 * `deno run -A scripts/check_identical.ts [--against REF] [--keep]`: proves that this tree writes
 * the same records, summaries and reports as another revision (default `main`), byte for byte
 * once latency and timestamps are set aside.
 *
 * Both trees run `scripts/bench.ts` over HTTP against the same reference server (this tree's,
 * restarted on the same port for each run, so the endpoint and the fault draws are the same) on
 * three runs: the uniform predictor (400 cases, parallel 8), the fitted model (400 cases,
 * parallel 8), and a fault mix (120 cases at parallel 1, so the seeded draws fall on the same
 * requests: malformed, out-of-range, missing-option and truncated answers, 429 with Retry-After 0,
 * 500s, resets and timeouts). `decisions.jsonl`, `run.json`, `report.md` and `report.html` are
 * compared after masking what differs between any two runs: `latency_ms`, the latency
 * percentiles, run ids, timestamps and durations, and the order cases were answered in
 * (`decisions.jsonl`'s lines and `report.md`'s trace are compared case by case, sorted by case id). The other revision is read with `git archive`
 * into a temporary folder; the repository is not changed.
 *
 * Exit status: 0 when every file is identical, 1 when one differs (the first difference is
 * printed), 2 for a usage error.
 *
 * @module
 */
import { join } from "node:path";
import { parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const USAGE =
  "usage: deno run -A scripts/check_identical.ts [--against REF] [--timeout-ms MS] [--keep]";
const FILES = ["decisions.jsonl", "run.json", "report.md", "report.html"];

interface Scenario {
  name: string;
  predictor: string;
  faults?: string;
  parallel: number;
  limit?: number;
}

const SCENARIOS: Scenario[] = [
  { name: "uniform", predictor: "uniform", parallel: 8 },
  { name: "fitted", predictor: "fitted", parallel: 8 },
  {
    name: "faults",
    predictor: "uniform",
    faults: "malformed=0.05,out_of_range=0.04,missing_option=0.04,truncated=0.04," +
      "http429=0.05:0,http500=0.02,reset=0.02,timeout=0.01",
    parallel: 1,
    limit: 120,
  },
];

async function run(command: string, args: string[], cwd: string): Promise<Deno.CommandOutput> {
  return await new Deno.Command(command, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
}

/** Extracts `ref` with `git archive` into `dir` (read-only on the repository). */
async function extract(ref: string, dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const archive = await run("git", ["-C", ROOT, "archive", "--format=tar", ref], ROOT);
  if (!archive.success) {
    throw new Error(
      `Cannot read revision "${ref}": ${new TextDecoder().decode(archive.stderr).trim()}`,
    );
  }
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  const writer = tar.stdin.getWriter();
  await writer.write(archive.stdout);
  await writer.close();
  if (!(await tar.status).success) throw new Error(`Cannot unpack revision "${ref}"`);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

/** Starts this tree's reference server on `port` and waits until it listens. */
async function serve(scenario: Scenario, port: number): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(ROOT, "scripts/serve.ts"),
      "--port",
      String(port),
      "--predictor",
      scenario.predictor,
      ...(scenario.faults ? ["--faults", scenario.faults, "--seed", "11"] : []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`Cannot start the reference server on port ${port}`);
    text += value;
  }
  reader.releaseLock();
  return child;
}

/**
 * Blocks of lines, each starting at a line `starts` accepts, sorted (a stable sort on the block's
 * first line): `decisions.jsonl` and `report.md`'s trace list cases in the order they were
 * answered, which differs between two runs with requests in parallel.
 */
function sortBlocks(lines: readonly string[], starts: (line: string) => boolean): string[] {
  const blocks: string[][] = [];
  for (const line of lines) {
    if (starts(line) || blocks.length === 0) blocks.push([line]);
    else blocks.at(-1)!.push(line);
  }
  const key = (block: string[]) => block[0] ?? "";
  return blocks.sort((a, b) => key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0).flat();
}

/** Decision lines grouped by case (in file order within one), the groups sorted by case id. */
function byCase(text: string): string {
  const lines = text.split("\n").filter(Boolean);
  const caseOf = (line: string) => String(JSON.parse(line).case);
  const groups = new Map<string, string[]>();
  for (const line of lines) {
    const id = caseOf(line);
    groups.set(id, [...(groups.get(id) ?? []), line]);
  }
  const ids = [...groups.keys()].sort();
  return ids.flatMap((id) => groups.get(id)!).join("\n") + "\n";
}

/** `report.md` with its trace's case blocks sorted. */
function traceSorted(text: string): string {
  const start = text.indexOf("\n```\n", text.indexOf("## Trace"));
  const end = text.indexOf("\n```\n", start + 1);
  if (start < 0 || end < 0) return text;
  const trace = text.slice(start + 5, end).split("\n");
  return text.slice(0, start + 5) + sortBlocks(trace, (l) => !l.startsWith(" ")).join("\n") +
    text.slice(end);
}

/** What differs between any two runs of the same cases, masked. */
function mask(file: string, text: string): string {
  if (file === "decisions.jsonl") text = byCase(text);
  if (file === "report.md") text = traceSorted(text);
  let out = text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/\d{8}-\d{6}-[a-z0-9_-]+-[0-9a-f]{4}/g, "<run-id>");
  if (file === "decisions.jsonl") {
    out = out.replace(/"latency_ms":[0-9.e+-]+/g, '"latency_ms":<ms>');
  }
  if (file === "run.json") {
    out = out.replace(/"duration_ms": \d+/g, '"duration_ms": <ms>')
      .replace(/"latency": \{[^}]*\}/g, '"latency": <latency>');
  }
  if (file === "report.md" || file === "report.html") {
    out = out.replace(/p50 [0-9.,]+ ms, p95 [0-9.,]+ ms/g, "p50 <ms>, p95 <ms>")
      .replace(/<(td|span)([^>]*)>[0-9.,]+ ms<\/\1>/g, "<$1$2><ms></$1>")
      .replace(/\| [0-9.,]+ ms \|/g, "| <ms> |")
      .replace(/[0-9.,]+ ms/g, "<ms>");
  }
  return out;
}

function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  const la = a.split("\n");
  const lb = b.split("\n");
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    const x = la[i] ?? "<none>";
    const y = lb[i] ?? "<none>";
    if (x !== y) {
      let at = 0;
      while (at < x.length && x[at] === y[at]) at++;
      const from = Math.max(0, at - 80);
      return `line ${i + 1}, column ${at + 1}:\n  - …${x.slice(from, at + 120)}\n  + …${
        y.slice(from, at + 120)
      }`;
    }
  }
  return "lengths differ";
}

async function main(args: string[]): Promise<number> {
  const { values } = parse(args, {
    against: { type: "string" },
    "timeout-ms": { type: "string" },
    keep: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const ref = stringFlag(values.against) ?? "main";
  // A request timed out by the client on a loaded machine is retried, and shifts the fault draws.
  const timeoutMs = Number(stringFlag(values["timeout-ms"]) ?? "300");
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new UsageError(
      `Cannot use --timeout-ms "${values["timeout-ms"]}": give whole milliseconds`,
    );
  }
  const tmp = await Deno.makeTempDir({ prefix: "decibench-identical-" });
  const workflow = join(tmp, "identical.ts");
  let same = true;
  try {
    const base = join(tmp, "base");
    await extract(ref, base);
    const trees: [string, string][] = [[ref, base], ["this tree", ROOT]];
    for (const scenario of SCENARIOS) {
      const port = freePort();
      await Deno.writeTextFile(
        workflow,
        `export default {
  name: "identical",
  endpoint: { baseUrl: "http://127.0.0.1:${port}", model: "m", timeoutMs: ${timeoutMs}, retries: 2 },
  parallel: ${scenario.parallel},
};
`,
      );
      const dirs: string[] = [];
      for (const [label, tree] of trees) {
        const out = join(tmp, `${scenario.name}-${dirs.length}`);
        const server = await serve(scenario, port);
        try {
          const bench = await run(Deno.execPath(), [
            "run",
            "-A",
            join(tree, "scripts/bench.ts"),
            workflow,
            "--out",
            out,
            "--no-db",
            ...(scenario.limit ? ["--limit", String(scenario.limit)] : []),
          ], tree);
          try {
            await Deno.stat(join(out, "run.json"));
          } catch {
            throw new Error(
              `${label}: the ${scenario.name} run wrote no run.json: ${
                new TextDecoder().decode(bench.stderr)
              }`,
            );
          }
        } finally {
          server.kill("SIGTERM");
          await server.status;
        }
        dirs.push(out);
      }
      for (const file of FILES) {
        const [a, b] = await Promise.all(
          dirs.map(async (dir) => mask(file, await Deno.readTextFile(join(dir, file)))),
        );
        const difference = firstDifference(a!, b!);
        console.log(
          `${scenario.name.padEnd(8)} ${file.padEnd(16)} ${difference ? "DIFFERS" : "identical"}`,
        );
        if (difference) {
          same = false;
          console.log(`  ${ref} vs this tree, ${difference}`);
        }
      }
    }
  } finally {
    if (values.keep) console.log(`kept ${tmp}`);
    else await Deno.remove(tmp, { recursive: true });
  }
  console.log(same ? `same records, summaries and reports as ${ref}` : `differs from ${ref}`);
  return same ? 0 : 1;
}

if (import.meta.main) await runMain(main, { usage: USAGE });
