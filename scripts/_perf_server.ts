/**
 * The reference server `deno task perf` times runs against, in its own process: it prints its URL,
 * then answers commands on stdin, one per line — `stats` prints one JSON line with the wall-clock
 * times (ms since the epoch, shared by every process on the machine) of the first decision
 * request answered and the last one since the previous `reset`, and how many were answered;
 * `reset` clears them.
 *
 * ```sh
 * deno run -A scripts/_perf_server.ts [--predictor NAME] [--latency-ms N] [--slots N]
 * ```
 *
 * @module
 */
import { intFlag, parse } from "../lib/cli/args.ts";
import { createPredictor, type Predictor, startReferenceServer } from "../lib/server/mod.ts";

/** Wall-clock now in ms since the epoch, with sub-millisecond resolution. */
function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

async function main(): Promise<void> {
  const { values } = parse(Deno.args, {
    predictor: { type: "string" },
    "latency-ms": { type: "string" },
    slots: { type: "string" },
  });
  const inner = await createPredictor(
    typeof values.predictor === "string" ? values.predictor : "uniform",
  );
  let first: number | null = null;
  let last: number | null = null;
  let answered = 0;
  // The predictor answers once per valid request, after the request's latency: its first call
  // is the first request the server took up, its last call the last answer it sent.
  const predictor: Predictor = {
    name: inner.name,
    predict(state, questions) {
      const now = wallNow();
      first ??= now;
      last = now;
      answered++;
      return inner.predict(state, questions);
    },
  };
  const slots = intFlag(values.slots, "slots", 1);
  const server = await startReferenceServer({
    port: 0,
    predictor,
    latencyMs: intFlag(values["latency-ms"], "latency-ms", 0) ?? 0,
    ...(slots !== undefined ? { slots } : {}),
  });
  console.log(`listening on ${server.url}`);
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buffer = "";
  for await (const chunk of lines) {
    buffer += chunk;
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      const command = buffer.slice(0, i).trim();
      buffer = buffer.slice(i + 1);
      if (command === "stats") console.log(JSON.stringify({ first, last, answered }));
      else if (command === "reset") {
        first = null;
        last = null;
        answered = 0;
        console.log("{}");
      }
    }
  }
  await server.close();
}

if (import.meta.main) await main();
