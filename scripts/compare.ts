/**
 * `deno task compare RUN_A RUN_B [--out PATH] [--seed N] [--json]`: a paired comparison of two
 * runs on the decisions both share — each run's accuracy, KL, Brier and ECE, the accuracy
 * difference (B − A) with a paired bootstrap 95% interval, McNemar counts with the exact p-value,
 * and rows per workflow and per question. Writes `compare.md` into RUN_B's directory (or `--out`).
 * A run is a directory, or a run id under `runs/`. Runs on different dataset revisions are refused.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { join } from "node:path";
import { intFlag, parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { type LoadedRun, loadRun, writeAtomic } from "../lib/record/mod.ts";
import { compareRuns, comparisonReport } from "../lib/report/mod.ts";

const USAGE = "usage: deno task compare RUN_A RUN_B [--out PATH] [--seed N] [--json]";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function resolveRun(arg: string): Promise<LoadedRun> {
  const dir = !(await exists(arg)) && await exists(join("runs", arg)) ? join("runs", arg) : arg;
  try {
    return await loadRun(dir);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    out: { type: "string" },
    seed: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 2) {
    throw new UsageError(`expected two runs (RUN_A RUN_B), got ${positionals.length}`);
  }
  const [a, b] = await Promise.all(positionals.map(resolveRun)) as [LoadedRun, LoadedRun];
  const seed = intFlag(values.seed, "seed", 0);
  const comparison = compareRuns(a, b, seed !== undefined ? { seed } : {});
  const out = stringFlag(values.out) ?? join(b.dir, "compare.md");
  await writeAtomic(out, comparisonReport(comparison, { markdown: true }) + "\n");
  if (values.json === true) {
    console.log(JSON.stringify({ event: "comparison", out, ...comparison }));
  } else {
    console.log(comparisonReport(comparison));
    console.log(`\ncompare.md  ${out}`);
  }
  return 0;
}

if (import.meta.main) await runMain(main, { usage: USAGE, usageErrors: [RangeError] });
