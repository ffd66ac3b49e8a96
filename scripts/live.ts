/**
 * `deno task live [WORKFLOW] [--base-url URL] [--interval SECONDS] [--metrics-url URL|off]
 * [--seed N] [--probes N]`: watch a serving decision model live.
 *
 * @module
 */
import { runMain } from "../lib/cli/main.ts";
import { QuestionSetError } from "../lib/dataset/mod.ts";
import {
  type CommandSpec,
  intFlag,
  megabytesFlag,
  numberFlag,
  parseCommand,
  urlFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { runMonitor } from "../lib/live/mod.ts";
import { REQUEST_OPTIONS, requestFlags } from "../lib/cli/request_flags.ts";
import { loadWorkflow, withEndpointLimits, WorkflowError } from "../lib/workflow/mod.ts";

const DEFAULT_WORKFLOW = "workflows/reference.ts";

const COMMAND: CommandSpec = {
  name: "live",
  args: "[WORKFLOW]",
  summary:
    `Watch a serving decision model: one case at a time from the workflow's question set (its own
file, or the Typed Decisions test split), scored against gold, on a full-screen view (one line
per probe without a terminal). WORKFLOW defaults to ${DEFAULT_WORKFLOW}. Keys: Ctrl+R new
session, Ctrl+C or q quits.`,
  options: {
    "base-url": {
      type: "string",
      value: "URL",
      help: "probe this server instead of the workflow's",
    },
    "max-reply-mb": {
      type: "string",
      value: "MB",
      help:
        "most MiB of a reply read after decompression (default 16); over it the case is malformed",
    },
    interval: {
      type: "string",
      value: "SECONDS",
      help: "pause between probes (a number ≥ 0; default 0.5)",
    },
    "metrics-url": {
      type: "string",
      value: "URL|off",
      help: "llama.cpp /metrics to scrape (default the server's root /metrics), or off",
    },
    seed: { type: "string", value: "N", help: "case order (default the workflow's seed)" },
    probes: { type: "string", value: "N", help: "stop after N probes (N ≥ 1)" },
    timeout: REQUEST_OPTIONS.timeout,
    retries: {
      ...REQUEST_OPTIONS.retries,
      help:
        "extra attempts after a transient error, a whole number from 0 to 10 (default 0:\na failed probe is shown, and the next probe is the retry)",
    },
  },
  more: `Exit status: 0 stopped by the user or after --probes; 1 the server does not serve
decision models or refuses the key; 2 a usage or workflow error.`,
};

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length > 1) {
    throw new UsageError(
      `Cannot start the monitor: expected one workflow file, got ${positionals.length}`,
    );
  }
  const interval = numberFlag(values.interval, "interval", 0);
  const seed = intFlag(values.seed, "seed", 0);
  const probes = intFlag(values.probes, "probes", 1);
  const baseUrl = urlFlag(values["base-url"], "base-url");
  const metricsUrl = urlFlag(values["metrics-url"], "metrics-url", ["off"]);
  const { timeoutMs, retries } = requestFlags(values);
  const workflow = withEndpointLimits(await loadWorkflow(positionals[0] ?? DEFAULT_WORKFLOW), {
    maxReplyBytes: megabytesFlag(values["max-reply-mb"], "max-reply-mb"),
    timeoutMs,
  });
  const result = await runMonitor(workflow, {
    baseUrl,
    metricsUrl,
    intervalSeconds: interval,
    seed,
    probes,
    retries,
  });
  if (result.message) console.error(`decibench: ${result.message}`);
  return result.code;
}

if (import.meta.main) {
  await runMain(main, {
    usage: usageLine(COMMAND),
    usageErrors: [WorkflowError, QuestionSetError],
  });
}
