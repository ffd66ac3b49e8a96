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
import {
  type CommandSpec,
  intFlag,
  parseCommand,
  pathFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { findRun, fsErrorMessage, type OpenedRun, writeAtomic } from "../lib/record/mod.ts";
import { compareRuns, comparisonReport } from "../lib/report/mod.ts";

const COMMAND: CommandSpec = {
  name: "compare",
  args: "RUN_A RUN_B",
  summary:
    `A paired comparison of two runs on the decisions both share: each run's accuracy, KL, Brier and
ECE with intervals, the accuracy difference (B − A) with a paired bootstrap 95% interval, McNemar
counts with the exact p-value, rows per workflow and per question. A run is a directory, or a run
id under runs/. Runs on different dataset revisions are refused.`,
  options: {
    out: {
      type: "string",
      value: "PATH",
      help: "where to write compare.md (a folder gets compare.md inside; default RUN_B's folder)",
    },
    seed: { type: "string", value: "N", help: "bootstrap seed (a whole number ≥ 0)" },
    json: { type: "boolean", help: "print one JSON comparison event instead of the tables" },
  },
  more: "Exit status: 0 written; 2 a usage error or a run that cannot be read or compared.",
};

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function resolveRun(arg: string): Promise<OpenedRun> {
  try {
    return await findRun(arg);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length !== 2) {
    throw new UsageError(
      `Cannot compare: expected two runs (RUN_A RUN_B), got ${positionals.length}`,
    );
  }
  const seed = intFlag(values.seed, "seed", 0);
  const given = pathFlag(values.out, "out");
  const [a, b] = await Promise.all(positionals.map(resolveRun)) as [OpenedRun, OpenedRun];
  const comparison = await compareRuns(a, b, seed !== undefined ? { seed } : {});
  // --out at a folder writes compare.md inside it.
  const out = given === undefined
    ? join(b.dir, "compare.md")
    : await isDirectory(given)
    ? join(given, "compare.md")
    : given;
  try {
    await writeAtomic(out, comparisonReport(comparison, { markdown: true }) + "\n");
  } catch (error) {
    throw new UsageError(fsErrorMessage(error, out, "write", { fix: "choose another --out" }));
  }
  if (values.json === true) {
    console.log(JSON.stringify({ event: "comparison", out, ...comparison }));
  } else {
    console.log(comparisonReport(comparison));
    console.log(`\ncompare.md  ${out}`);
  }
  return 0;
}

if (import.meta.main) {
  await runMain(main, { usage: usageLine(COMMAND), usageErrors: [RangeError] });
}
