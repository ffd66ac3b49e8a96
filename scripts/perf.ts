/**
 * `deno task perf [--rounds N] [--repeat N] [--parallel N] [--predictor NAME]
 * [--latency-ms N]`: decibench's full benchmark against a
 * bare `fetch` loop, in one run, against one reference server (a separate process), alternating
 * the two sides and reporting medians and their ratio; plus dataset load/verify and scoring time.
 *
 * @module
 */
import { intFlag, parse } from "../lib/cli/args.ts";
import { systemOneEngine } from "../lib/client/systemone.ts";
import { loadDataset } from "../lib/dataset/mod.ts";
import { summarize } from "../lib/metrics/mod.ts";
import { decisionRecords } from "../lib/record/decisions.ts";
import { prepareEndpoint, runPrepared, validateWorkflow } from "../lib/workflow/mod.ts";

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function startServer(
  predictor: string,
  latencyMs: number,
): Promise<{ url: string; child: Deno.ChildProcess }> {
  const serve = new URL("./serve.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      serve,
      "--port",
      "0",
      "--predictor",
      predictor,
      "--latency-ms",
      String(latencyMs),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/http:\/\/\S+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("Cannot start the reference server: it exited before listening");
    text += value;
  }
  reader.releaseLock();
  return { url: text.match(/http:\/\/\S+/)![0], child };
}

async function bareLoop(url: string, bodies: readonly string[], parallel: number): Promise<void> {
  let next = 0;
  async function worker(): Promise<void> {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      await res.text();
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker));
}

async function main(): Promise<void> {
  const { values } = parse(Deno.args, {
    rounds: { type: "string" },
    repeat: { type: "string" },
    parallel: { type: "string" },
    predictor: { type: "string" },
    "latency-ms": { type: "string" },
  });
  const rounds = intFlag(values.rounds, "rounds", 1) ?? 5;
  const repeat = intFlag(values.repeat, "repeat", 1) ?? 10;
  const parallel = intFlag(values.parallel, "parallel", 1) ?? 8;
  // uniform: the cheapest server, so the client's own cost shows most; fitted: the default model.
  const predictor = typeof values.predictor === "string" ? values.predictor : "uniform";
  // A server that takes this long per answer, like a real model (0: as fast as loopback allows).
  const latencyMs = intFlag(values["latency-ms"], "latency-ms", 0) ?? 0;

  // Dataset load + verify (manifest, gzip, sha256, content checks).
  const loads: number[] = [];
  let dataset = await loadDataset();
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    dataset = await loadDataset();
    loads.push(performance.now() - t);
  }

  // Scoring 2,000 decisions: records from gold-shaped replies, then the summary with bootstrap.
  const replies = dataset.cases.map((c) => ({
    reply: {
      answers: Object.fromEntries(
        Object.entries(c.gold).map(([name, g]) => [name, {
          type: g.type,
          probabilities: g.probabilities,
          probability: Math.max(...Object.values(g.probabilities)),
          calibrated: true,
        }]),
      ),
    },
    error: null,
    attempts: 1,
    latencyMs: 1,
  }));
  const scoring: number[] = [];
  const summaries: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    const records = dataset.cases.flatMap((c, j) => decisionRecords(c, replies[j]!));
    const t1 = performance.now();
    summarize(records, { seed: 0 });
    scoring.push(t1 - t);
    summaries.push(performance.now() - t1);
  }

  const server = await startServer(predictor, latencyMs);
  const out = await Deno.makeTempDir({ prefix: "decibench-perf-" });
  try {
    const workflow = validateWorkflow({
      name: "perf",
      endpoint: { baseUrl: server.url, model: "perf" },
      parallel,
    }, "perf");
    const endpoint = await prepareEndpoint(workflow.endpoint!);
    const engine = systemOneEngine(server.url);
    const cases = Array.from({ length: repeat }, () => dataset.cases).flat();
    const bodies = cases.map((c) =>
      engine.build({ state: c.state, questions: c.questions, model: "perf", stateEncoding: "json" })
        .body
    );
    const url = engine.build({ state: null, questions: {}, model: "", stateEncoding: "json" }).url;
    await bareLoop(url, bodies.slice(0, 800), parallel); // warm-up
    const bare: number[] = [];
    const full: number[] = [];
    const whole: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let t = performance.now();
      await bareLoop(url, bodies, parallel);
      bare.push(bodies.length / ((performance.now() - t) / 1000));
      // decibench: from the call (run directory, run.json, spec and fingerprint included) to the
      // moment the last case is validated, scored and appended to decisions.jsonl.
      let answered = 0;
      t = performance.now();
      const result = await runPrepared(workflow, { dataset, cases, endpoint }, {
        outDir: `${out}/run-${r}`,
        parallel,
        // The same end of run as before reports and the index moved into the run: summary,
        // thresholds, the final rewrite and run.json.
        reports: false,
        dbPath: null,
        onEvent: (event) => {
          if (event.event === "case" && event.done === event.total) answered = performance.now();
        },
      });
      full.push(cases.length / ((answered - t) / 1000));
      // The whole call adds the end-of-run work: summary with bootstrap intervals, final rewrite.
      whole.push(cases.length / ((performance.now() - t) / 1000));
      if (result.summary.errors) throw new Error(`perf run had ${result.summary.errors} errors`);
    }
    const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
    console.log(
      `requests     ${rounds} rounds × ${cases.length} requests per side, concurrency ${parallel}, sides alternated, server predictor ${predictor}, ${latencyMs} ms per answer (separate process)`,
    );
    console.log(`bare fetch   median ${fmt(median(bare))} req/s  (${bare.map(fmt).join(", ")})`);
    console.log(
      `decibench    median ${fmt(median(full))} req/s  (${
        full.map(fmt).join(", ")
      })  requests validated, scored and recorded`,
    );
    console.log(`ratio ${(median(full) / median(bare)).toFixed(2)}`);
    console.log(
      `whole run    median ${fmt(median(whole))} req/s, ratio ${
        (median(whole) / median(bare)).toFixed(2)
      }  (adds the end-of-run summary with bootstrap intervals over ${
        cases.length * 5
      } decisions and the final rewrite)`,
    );
    console.log(
      `load         ${median(loads).toFixed(1)} ms median to load and verify the test split`,
    );
    console.log(
      `scoring      ${median(scoring).toFixed(1)} ms median to score 2,000 decisions, ${
        median(summaries).toFixed(1)
      } ms for the summary with 1,000-resample bootstrap intervals`,
    );
  } finally {
    server.child.kill("SIGTERM");
    await server.child.status;
    await Deno.remove(out, { recursive: true });
  }
}

if (import.meta.main) await main();
