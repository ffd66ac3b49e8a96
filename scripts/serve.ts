/**
 * `deno task serve`: runs the reference System One server standalone.
 *
 * ```sh
 * deno task serve [--port N] [--hostname H] [--predictor NAME] [--faults SPEC] [--seed N]
 *                 [--latency-ms N] [--slots N] [--stop-after N] [--api-key-env NAME]
 *                 [--workflow FILE --skill S --temperature T]
 * ```
 *
 * @module
 */
import { parse } from "../lib/cli/args.ts";
import { commandOf } from "../lib/invocation.ts";
import {
  createPredictorForCases,
  predictorNames,
  startReferenceServer,
} from "../lib/server/mod.ts";
import type { ReferenceServerOptions } from "../lib/server/mod.ts";
import { loadCases, loadWorkflow, WorkflowError } from "../lib/workflow/mod.ts";
import { QuestionSetError } from "../lib/dataset/mod.ts";

const USAGE = `Usage: ${commandOf("serve")} [options]

Runs the decibench reference server: System One at POST /v1/systemone, GET /health, GET /metrics,
GET /props, GET /slots.

Options:
  --port N            TCP port; 0 picks a free one (default 8080)
  --hostname H        address to listen on (default 127.0.0.1)
  --predictor NAME    who answers: PREDICTORS (default uniform)
  --faults SPEC       inject faults: comma list of kind=rate, e.g. http500=0.05,http429=0.1:2
                      kinds: http500 http503 http429[=rate:retry-after-seconds] http404 timeout
                      reset malformed truncated out_of_range missing_option; jitter=SD adds
                      seeded gaussian noise (standard deviation SD) to every answer, renormalised
  --seed N            seed of the fault draws (default 0); request n (in arrival order) always
                      gets draw n, so with parallel clients arrival order decides who gets a fault
  --latency-ms N      delay before answering each decision request (default 0)
  --slots N           process at most N decision requests at once, like llama-server's slots;
                      the others wait in arrival order (default: no limit); GET /props reports
                      total_slots and /metrics llamacpp:requests_deferred
  --stop-after N      take N decision requests, then stop as if killed: the next one's
                      connection is reset and the server stops listening (a replica lost mid-run)
  --api-key-env NAME  require "Authorization: Bearer <key>" with the key read from env var NAME
  --workflow FILE     the workflow whose question set the synthetic predictor knows (its cases are
                      found by their state; required with --predictor synthetic)
  --skill S           synthetic: added to the gold option's logit (default 1)
  --temperature T     synthetic: logits are divided by T > 0 (default 1; with skill 1, below 1 is
                      over-confident); --seed N seeds its noise
  -h, --help          show this help`;

/** A command-line mistake: print the message and the hint, exit 2. */
class UsageError extends Error {
  override name = "UsageError";
}

function integer(
  flag: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(
      `Cannot use --${flag} "${text}": expected a whole number in ${min}-${max}`,
    );
  }
  return value;
}

function finite(flag: string, text: string | undefined, positive: boolean): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || (positive && value <= 0)) {
    throw new UsageError(
      `Cannot use --${flag} "${text}": expected a number${positive ? " > 0" : ""}`,
    );
  }
  return value;
}

/** The synthetic predictor's settings, when asked for. */
interface SyntheticArgs {
  workflow: string;
  skill: number | undefined;
  temperature: number | undefined;
}

function readOptions(
  args: string[],
): { options: ReferenceServerOptions; synthetic: SyntheticArgs | undefined } | "help" {
  let parsed;
  try {
    parsed = parse(args, {
      port: { type: "string" },
      hostname: { type: "string" },
      predictor: { type: "string" },
      faults: { type: "string" },
      seed: { type: "string" },
      "latency-ms": { type: "string" },
      slots: { type: "string" },
      "stop-after": { type: "string" },
      "api-key-env": { type: "string" },
      workflow: { type: "string" },
      skill: { type: "string" },
      temperature: { type: "string" },
      help: { type: "boolean", short: "h" },
    }, "serve");
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length) {
    throw new UsageError(`Cannot use "${parsed.positionals[0]}": serve takes no arguments`);
  }
  const values = parsed.values as Record<string, string | undefined> & { help?: boolean };
  if (values.help) return "help";
  const options: ReferenceServerOptions = {
    port: integer("port", values.port, 8080, 0, 65535),
    hostname: values.hostname ?? "127.0.0.1",
    predictor: values.predictor ?? "uniform",
    seed: integer("seed", values.seed, 0, 0, Number.MAX_SAFE_INTEGER),
    latencyMs: integer("latency-ms", values["latency-ms"], 0, 0, 3_600_000),
  };
  const skill = finite("skill", values.skill, false);
  const temperature = finite("temperature", values.temperature, true);
  let synthetic: SyntheticArgs | undefined;
  if (options.predictor === "synthetic") {
    if (values.workflow === undefined) {
      throw new UsageError(
        "Cannot start the synthetic predictor: --workflow FILE is required (the question set whose labels it knows)",
      );
    }
    synthetic = { workflow: values.workflow, skill, temperature };
  } else {
    const given = ["workflow", "skill", "temperature"].find((flag) => values[flag] !== undefined);
    if (given !== undefined) {
      throw new UsageError(
        `Cannot use --${given} with --predictor ${options.predictor}: it sets the synthetic predictor (--predictor synthetic)`,
      );
    }
  }
  if (values.faults !== undefined) options.faults = values.faults;
  if (values.slots !== undefined) options.slots = integer("slots", values.slots, 1, 1, 4096);
  if (values["stop-after"] !== undefined) {
    options.stopAfter = integer("stop-after", values["stop-after"], 0, 0, Number.MAX_SAFE_INTEGER);
  }
  const keyEnv = values["api-key-env"];
  if (keyEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) {
      throw new UsageError(
        `Cannot use --api-key-env "${keyEnv}": expected an environment variable name`,
      );
    }
    const key = Deno.env.get(keyEnv);
    if (key === undefined || key === "") {
      throw new UsageError(
        `Cannot read the API key: environment variable ${keyEnv} is ${
          key === undefined ? "not set" : "empty"
        }; set it or drop --api-key-env`,
      );
    }
    options.apiKey = key;
  }
  return { options, synthetic };
}

async function main(args: string[]): Promise<number> {
  let read: ReturnType<typeof readOptions>;
  try {
    read = readOptions(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\nRun with --help for the options.`);
    return 2;
  }
  if (read === "help") {
    console.log(USAGE.replace("PREDICTORS", predictorNames().join(", ")));
    return 0;
  }
  const { options, synthetic } = read;
  if (synthetic !== undefined) {
    try {
      const workflow = await loadWorkflow(synthetic.workflow);
      const { cases } = await loadCases(workflow);
      const predictor = await createPredictorForCases("synthetic", cases, {
        skill: synthetic.skill,
        temperature: synthetic.temperature,
        seed: options.seed,
      });
      if (predictor !== null) options.predictor = predictor;
    } catch (error) {
      if (
        !(error instanceof WorkflowError || error instanceof QuestionSetError ||
          error instanceof RangeError)
      ) throw error;
      console.error(`error: ${error.message}`);
      return 2;
    }
  }
  const shutdown = new AbortController();
  let server;
  try {
    server = await startReferenceServer({ ...options, signal: shutdown.signal });
  } catch (error) {
    if (error instanceof RangeError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof Deno.errors.AddrInUse) {
      console.error(
        `error: Cannot start the reference server: port ${options.port} on ${options.hostname} is in use; choose another with --port (0 picks a free one)`,
      );
      return 1;
    }
    console.error(`error: Cannot start the reference server: ${(error as Error).message}`);
    return 1;
  }
  // Listen for Ctrl+C before saying "listening": a Ctrl+C right after that line stops cleanly.
  const stop = (): void => shutdown.abort();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  const faults = options.faults ? `, faults ${options.faults}, seed ${options.seed}` : "";
  const slots = server.slots === undefined ? "" : `, ${server.slots} slots`;
  console.log(
    `decibench reference server (predictor ${server.predictor}${faults}${slots}) listening on ${server.url}`,
  );
  // Ctrl+C, SIGTERM, or the server stopping on its own (--stop-after).
  await Promise.race([
    new Promise<void>((resolve) => shutdown.signal.addEventListener("abort", () => resolve())),
    server.stopped,
  ]);
  await server.close();
  // The listeners stay until the process exits: one Ctrl+C can arrive twice (the terminal's
  // process group, and `deno task` forwarding it), and a late copy must not kill it with 130.
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
