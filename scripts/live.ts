/**
 * `deno task live [WORKFLOW] [--base-url URL] [--interval SECONDS] [--metrics-url URL|off]
 * [--seed N] [--probes N]`: watch a serving decision model live.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { QuestionSetError } from "../lib/dataset/mod.ts";
import { intFlag, numberFlag, parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { runMonitor } from "../lib/live/mod.ts";
import { loadWorkflow, WorkflowError } from "../lib/workflow/mod.ts";

const USAGE =
  "usage: deno task live [WORKFLOW] [--base-url URL] [--interval SECONDS] [--metrics-url URL|off] [--seed N] [--probes N]";

const DEFAULT_WORKFLOW = "workflows/reference.ts";

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    "base-url": { type: "string" },
    interval: { type: "string" },
    "metrics-url": { type: "string" },
    seed: { type: "string" },
    probes: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    throw new UsageError(`expected one workflow file, got ${positionals.length}`);
  }
  const interval = numberFlag(values.interval, "interval", 0);
  const seed = intFlag(values.seed, "seed", 0);
  const probes = intFlag(values.probes, "probes", 1);
  const baseUrl = stringFlag(values["base-url"]);
  const metricsUrl = stringFlag(values["metrics-url"]);
  const workflow = await loadWorkflow(positionals[0] ?? DEFAULT_WORKFLOW);
  const result = await runMonitor(workflow, {
    baseUrl,
    metricsUrl,
    intervalSeconds: interval,
    seed,
    probes,
  });
  if (result.message) console.error(`decibench: ${result.message}`);
  return result.code;
}

if (import.meta.main) {
  await runMain(main, { usage: USAGE, usageErrors: [WorkflowError, QuestionSetError] });
}
