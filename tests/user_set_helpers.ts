// Helpers for the tests of a run on the user's own question set: the first rows of
// examples/tickets (CSV) copied into a temp folder with its workflow, and a real `deno task
// bench` run on it against the embedded reference server. The rows are read from the JSONL copy
// of the same set, so a test's expectations do not go through decibench's CSV reader.
import { join } from "node:path";
import type { RunJson } from "../lib/record/mod.ts";
import { readRunJson, ROOT, runScript } from "./bench_cli_helpers.ts";

/** A run on a copy of the tickets set. */
export interface TicketsRun {
  /** The folder holding the copy, its workflow and the runs. */
  tmp: string;
  /** The copied question set file. */
  file: string;
  /** The run directory. */
  dir: string;
  /** Its run.json. */
  run: RunJson;
  /** The rows of the copy, as parsed. */
  rows: Record<string, unknown>[];
  /** What bench printed to stdout, by lines. */
  stdout: string[];
}

/** Options of {@linkcode ticketsRun}. */
export interface TicketsRunOptions {
  /** Rows copied from examples/tickets/tickets.jsonl. @default 120 */
  rows?: number;
  /** The index (`--db`), or null for `--no-db`. @default null */
  db?: string | null;
  /** Reference-server faults, e.g. `http500=0.3` (with no retries). @default none */
  faults?: string;
}

/**
 * Copies the first rows of the tickets set into a temp folder and benches them (the uniform
 * reference predictor; a question threshold and a lane threshold).
 *
 * @param options Rows and index.
 * @returns The copy and its run.
 * @throws {Error} When bench fails to write the run.
 */
export async function ticketsRun(options: TicketsRunOptions = {}): Promise<TicketsRun> {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-user-set-" });
  const count = options.rows ?? 120;
  const text = await Deno.readTextFile(join(ROOT, "examples/tickets/tickets.jsonl"));
  const lines = text.split("\n").filter(Boolean).slice(0, count);
  // One record per line in the example CSV (quoted fields hold no line break).
  const csv = (await Deno.readTextFile(join(ROOT, "examples/tickets/tickets.csv"))).split("\n");
  const file = join(tmp, "tickets.csv");
  await Deno.writeTextFile(file, csv.slice(0, count + 1).join("\n") + "\n");
  const workflow = (await Deno.readTextFile(join(ROOT, "examples/tickets/workflow.yaml")))
    .replace(/^\$schema:.*$/m, "")
    .replace(
      "reference: { predictor: uniform }",
      options.faults
        ? `reference: { predictor: uniform, faults: "${options.faults}" }\n  retries: 0`
        : "reference: { predictor: uniform }",
    );
  await Deno.writeTextFile(join(tmp, "workflow.yaml"), workflow);
  const dir = join(tmp, "runs", "tickets");
  const args = [join(tmp, "workflow.yaml"), "--out", dir];
  if (options.db) args.push("--db", options.db);
  else args.push("--no-db");
  const bench = await runScript("bench.ts", args);
  if (bench.code !== 0 && bench.code !== 1) {
    throw new Error(`bench exited ${bench.code}: ${bench.stderr}`);
  }
  return {
    tmp,
    file,
    dir,
    run: await readRunJson(dir),
    rows: lines.map((l) => JSON.parse(l)),
    stdout: bench.lines,
  };
}
