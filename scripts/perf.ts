/**
 * `deno task perf [--rounds N] [--parallel N] [--predictor NAME] [--only SECTION,…]`:
 * how close decibench's time to result is to the wire, and how it compares with a Python/httpx
 * peer harness, in one run. Every figure is the median of alternated rounds with the range; the
 * reference servers run in their own processes (they share this machine's cores).
 *
 * 1. Request phase: decibench's pipeline (build, send, strict validation, scoring, one append per
 *    case) in this process against a bare `fetch` loop over the same prebuilt bodies, at 0, 2 and
 *    20 ms per answer, as a ratio of requests per second; beside them a floor loop that does only
 *    the built-in work each case needs (no checks), the most any pipeline could reach here.
 * 2. Fixed costs of `deno task bench` (workflows/llama.ts, 400 cases = 2,000 decisions, reports
 *    and index written): process start → first request, and last answer → exit.
 * 3. Time to result: the whole `deno task bench` at 20 ms per answer ÷ the bare loop's request
 *    time on the same server; and the wall time of a `--limit 20` smoke run.
 * 4. decibench against the peer (scripts/peer/peer.py): 400 cases, parallel 4, whole runs.
 * 5. The time-to-result curve over parallel 1…2N against a server with N slots.
 * 6. The transport, by measurement: `fetch`, `node:http` with a keep-alive agent, undici.
 *
 * Sections (`--only`): phase, fixed, result, peer, curve, transport (default: all).
 *
 * @module
 */
import { join } from "node:path";
import process from "node:process";
import { intFlag, parse, UsageError } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { systemOneEngine } from "../lib/client/systemone.ts";
import { type Case, type Dataset, type GoldAnswer, loadDataset } from "../lib/dataset/mod.ts";
import { prepareEndpoint, runPrepared, validateWorkflow } from "../lib/workflow/mod.ts";
import { figure, goal } from "./_perf_stats.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const WORKFLOW = join(ROOT, "workflows/llama.ts");

/** CPU time (user + system) this process has used, in ms. */
function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** Wall-clock now in ms since the epoch (comparable across processes). */
function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

interface PerfServer {
  url: string;
  /** First and last answer since the last reset (wall-clock ms), and how many. */
  stats(): Promise<{ first: number | null; last: number | null; answered: number }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

async function startServer(
  predictor: string,
  latencyMs: number,
  slots?: number,
): Promise<PerfServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(ROOT, "scripts/_perf_server.ts"),
      "--predictor",
      predictor,
      "--latency-ms",
      String(latencyMs),
      ...(slots !== undefined ? ["--slots", String(slots)] : []),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const writer = child.stdin.getWriter();
  let buffer = "";
  const line = async (): Promise<string> => {
    while (!buffer.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("Cannot talk to the perf server: it exited");
      buffer += value;
    }
    const i = buffer.indexOf("\n");
    const out = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    return out;
  };
  const first = await line();
  const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
  if (!url) throw new Error(`Cannot start the perf server: it printed ${JSON.stringify(first)}`);
  const command = async (text: string): Promise<string> => {
    await writer.write(new TextEncoder().encode(`${text}\n`));
    return await line();
  };
  return {
    url,
    stats: async () => JSON.parse(await command("stats")),
    reset: async () => void await command("reset"),
    close: async () => {
      await writer.close();
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      await child.status;
    },
  };
}

/** The bare loop: the same prebuilt bodies, the same concurrency, each reply read as text. */
async function bareLoop(url: string, bodies: readonly string[], parallel: number): Promise<void> {
  let next = 0;
  async function worker(): Promise<void> {
    while (next < bodies.length) {
      const body = bodies[next++] as string;
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

/** A reply's answer as the floor loop reads it: its distribution, without any check. */
type FloorAnswer = { type?: string; noul?: number; probabilities?: Record<string, number> };

/**
 * The floor loop on `fetch`: only the built-in work every run must do per case, with no
 * validation and a minimal scoring. It builds the body, sends it with `fetch`, parses the reply
 * with `JSON.parse`, makes one record per question with a decision record's fields (arg-max
 * answer, KL, Brier) through `JSON.stringify`, and writes the case's lines with one `writeSync`.
 * Measured, it stayed at 0.44–0.60 of the bare loop at zero latency, where decibench on `fetch`
 * was too: on `fetch`, no pipeline doing a run's work could reach the 0.75 goal here.
 */
async function floorLoop(
  url: string,
  cases: readonly Case[],
  parallel: number,
  path: string,
): Promise<void> {
  const file = await Deno.open(path, { create: true, write: true, truncate: true });
  const encoder = new TextEncoder();
  let buffer = new Uint8Array(1 << 16);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < cases.length) {
      const c = cases[next++] as Case;
      const body = JSON.stringify({ model: "perf", state: c.state, questions: c.questions });
      const started = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const reply = JSON.parse(await res.text());
      const latency = Math.round((performance.now() - started) * 1000) / 1000;
      let text = "";
      for (const [name, question] of Object.entries(c.questions)) {
        const raw = reply.answers[name] as FloorAnswer;
        const predicted = raw.type === "noul"
          ? { true: raw.noul as number, false: 1 - (raw.noul as number) }
          : raw.probabilities as Record<string, number>;
        const gold = c.gold[name] as GoldAnswer;
        let answer = "";
        let confidence = -1;
        for (const key in predicted) {
          const p = predicted[key] as number;
          if (p > confidence) [answer, confidence] = [key, p];
        }
        let kl = 0;
        let brier = 0;
        for (const key in gold.probabilities) {
          const g = gold.probabilities[key] as number;
          const p = predicted[key] ?? 0;
          if (g > 0) kl += g * Math.log(g / Math.max(p, 1e-12));
          brier += (p - g) ** 2;
        }
        text += JSON.stringify({
          case: c.id,
          workflow: c.workflow,
          question: name,
          type: question.type,
          predicted,
          answer,
          confidence,
          gold: gold.label,
          gold_probabilities: gold.probabilities,
          correct: answer === gold.label,
          kl,
          brier,
          latency_ms: latency,
          attempts: 1,
          input_tokens: reply.usage?.input_tokens ?? null,
          calibrated: true,
          error: null,
          endpoint: "llama.cpp",
        }) + "\n";
      }
      if (buffer.length < text.length * 3) buffer = new Uint8Array(text.length * 3);
      const { written } = encoder.encodeInto(text, buffer);
      file.writeSync(buffer.subarray(0, written));
    }
  }
  try {
    await Promise.all(Array.from({ length: parallel }, worker));
  } finally {
    file.close();
  }
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

interface Spawned {
  /** Process start (just before spawning) → exit, ms. */
  wallMs: number;
  /** Wall-clock ms at spawn and at exit. */
  startedAt: number;
  exitedAt: number;
}

/**
 * Runs a command to its end, failing loudly when it exits otherwise than 0 or `allowed` (bench
 * exits 1 when workflows/llama.ts's accuracy threshold fails, as it does on the uniform server).
 */
async function spawn(
  command: string,
  args: string[],
  allowed = 0,
  env: Record<string, string> = {},
): Promise<Spawned> {
  const startedAt = wallNow();
  const child = new Deno.Command(command, {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const status = await child.status;
  const exitedAt = wallNow();
  if (status.code !== 0 && status.code !== allowed) {
    throw new Error(`${command} ${args.join(" ")} exited ${status.code}: ${await stderr}`);
  }
  await stderr;
  return { wallMs: exitedAt - startedAt, startedAt, exitedAt };
}

/**
 * The words of `deno task bench` after `deno` (its flags included), read from `deno.json`, so
 * perf runs exactly what the task runs.
 */
const BENCH_TASK: readonly string[] = (() => {
  const config = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json")));
  const words = String(config.tasks.bench).split(/\s+/);
  if (words[0] !== "deno" || words.at(-1) !== "scripts/bench.ts") {
    throw new Error(
      `perf: deno.json's bench task "${config.tasks.bench}" is not "deno … scripts/bench.ts"`,
    );
  }
  return [...words.slice(1, -1), join(ROOT, "scripts/bench.ts")];
})();

function benchArgs(url: string, out: string, extra: string[]): string[] {
  return [
    ...BENCH_TASK,
    WORKFLOW,
    "--base-url",
    url,
    "--out",
    out,
    "--db",
    join(out, "..", "index.db"),
    ...extra,
  ];
}

/** The fresh-process floors' command (`scripts/_perf_cold.ts`), with the bench task's flags. */
const COLD = [...BENCH_TASK.slice(0, -1), join(ROOT, "scripts/_perf_cold.ts")];

/**
 * One whole `deno task bench workflows/llama.ts` against `url`, into `out`; fails unless the run
 * completed (its exit status is 1 on the uniform server: the workflow's thresholds fail there).
 */
async function bench(url: string, out: string, extra: string[]): Promise<Spawned> {
  const run = await spawn(Deno.execPath(), benchArgs(url, out, extra), 1);
  const status = JSON.parse(await Deno.readTextFile(join(out, "run.json"))).status;
  if (status !== "completed") throw new Error(`perf: the bench run in "${out}" is ${status}`);
  return run;
}

/** A Python 3 with httpx: Debian's, else the one on PATH; installs python3-httpx when neither. */
async function findPython(): Promise<string> {
  const works = async (python: string): Promise<boolean> => {
    try {
      const out = await new Deno.Command(python, {
        args: ["-c", "import httpx"],
        stdout: "null",
        stderr: "null",
      }).output();
      return out.success;
    } catch {
      return false;
    }
  };
  for (const python of ["/usr/bin/python3", "python3"]) if (await works(python)) return python;
  console.error("perf: installing python3-httpx for the peer harness (apt-get)");
  const sudo = Deno.uid() === 0 ? [] : ["sudo"];
  const install = await new Deno.Command(sudo[0] ?? "apt-get", {
    args: [...(sudo.length ? ["apt-get"] : []), "install", "-y", "-qq", "python3-httpx"],
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "null",
  }).output();
  if (!install.success || !await works("/usr/bin/python3")) {
    throw new Error("Cannot run the peer harness: apt-get install python3-httpx failed");
  }
  return "/usr/bin/python3";
}

interface Options {
  rounds: number;
  parallel: number;
  predictor: string;
  /** Sections to run. */
  only: Set<string>;
}

const SECTIONS = ["phase", "fixed", "result", "peer", "curve", "transport"];

/** 1. The request phase: decibench in this process vs the bare loop, alternated. */
async function requestPhase(
  dataset: Dataset,
  server: PerfServer,
  latencyMs: number,
  options: Options,
  out: string,
): Promise<{
  bare: number[];
  full: number[];
  ratio: number[];
  floorRatio: number[];
  bareCpu: number[];
  fullCpu: number[];
  floorCpu: number[];
  requests: number;
}> {
  const repeat = latencyMs === 0 ? 10 : latencyMs <= 2 ? 4 : 1;
  const { parallel } = options;
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
  const url = engine.params.url as string;
  await bareLoop(url, bodies.slice(0, 800), parallel); // warm-up
  const bare: number[] = [];
  const full: number[] = [];
  const ratio: number[] = [];
  const bareCpu: number[] = [];
  const fullCpu: number[] = [];
  const floorRatio: number[] = [];
  const floorCpu: number[] = [];
  const floorPath = (r: number | string) => join(out, `floor-${latencyMs}-${r}.jsonl`);
  await floorLoop(url, cases.slice(0, 800), parallel, floorPath("warm-up"));
  for (let r = 0; r < options.rounds; r++) {
    const cpu0 = cpuMs();
    const bareMs = await timed(() => bareLoop(url, bodies, parallel));
    bareCpu.push((cpuMs() - cpu0) / cases.length * 1000);
    const cpu2 = cpuMs();
    const floorMs = await timed(() => floorLoop(url, cases, parallel, floorPath(r)));
    floorCpu.push((cpuMs() - cpu2) / cases.length * 1000);
    floorRatio.push(bareMs / floorMs);
    let cpuAnswered = 0;
    const cpu1 = cpuMs();
    // decibench: from the call (run directory, run.json, spec and fingerprint included) to the
    // moment the last case is validated, scored and appended to decisions.jsonl.
    let answered = 0;
    const t = performance.now();
    const result = await runPrepared(workflow, { dataset, cases, endpoint }, {
      outDir: join(out, `phase-${latencyMs}-${r}`),
      parallel,
      // The request phase only: no reports or index at the end.
      reports: false,
      dbPath: null,
      onEvent: (event) => {
        if (event.event === "case" && event.done === event.total) {
          answered = performance.now();
          cpuAnswered = cpuMs();
        }
      },
    });
    fullCpu.push((cpuAnswered - cpu1) / cases.length * 1000);
    if (result.summary.errors) throw new Error(`perf run had ${result.summary.errors} errors`);
    const fullMs = answered - t;
    bare.push(cases.length / (bareMs / 1000));
    full.push(cases.length / (fullMs / 1000));
    ratio.push(bareMs / fullMs);
  }
  return { bare, full, ratio, floorRatio, bareCpu, fullCpu, floorCpu, requests: cases.length };
}

/** What every section needs. */
interface Context {
  dataset: Dataset;
  options: Options;
  out: string;
  server(latency: number): PerfServer;
  say(text: string): void;
}

/** 1. Request-phase ratios at 0, 2 and 20 ms per answer. */
async function phaseSection(ctx: Context): Promise<void> {
  const { options, say } = ctx;
  say(
    `\nrequest phase: decibench ÷ bare fetch loop, parallel ${options.parallel}, in this process`,
  );
  const goals: Record<number, [number, string] | undefined> = {
    0: [0.75, "0.75"],
    2: [0.97, "0.97"],
  };
  for (const latency of [0, 2, 20]) {
    const phase = await requestPhase(ctx.dataset, ctx.server(latency), latency, options, ctx.out);
    const g = goals[latency];
    say(
      `  ${String(latency).padStart(2)} ms per answer  ${phase.requests} requests/side  bare ${
        figure(phase.bare, { unit: " req/s" })
      }  decibench ${figure(phase.full, { unit: " req/s" })}  ratio ${
        figure(phase.ratio, { decimals: 2 })
      }${g ? `  ${goal(phase.ratio, ">=", g[0], g[1])}` : ""}`,
    );
    const extra = phase.fullCpu.map((c, i) => c - (phase.bareCpu[i] as number));
    say(
      `      client CPU per request: bare ${figure(phase.bareCpu, { unit: " µs" })}, decibench ${
        figure(phase.fullCpu, { unit: " µs" })
      }, added ${figure(extra, { unit: " µs" })}`,
    );
    say(
      `      floor loop on fetch (build, JSON.parse, five records through JSON.stringify, one ` +
        `write; no checks) ÷ bare ${figure(phase.floorRatio, { decimals: 2 })}, client CPU ${
          figure(phase.floorCpu, { unit: " µs" })
        } per request`,
    );
  }
}

/** 2. Fixed costs of a whole `deno task bench`: 2,000 decisions, reports and index written. */
async function fixedSection(ctx: Context): Promise<void> {
  const { options, say } = ctx;
  const startup: number[] = [];
  const ending: number[] = [];
  // Floors no run can go under, each in a fresh process: Deno's start and exit, and the report
  // charts' code loaded and drawn cold (`scripts/_perf_cold.ts`).
  const empty: number[] = [];
  const charts = { loadMs: [] as number[], drawMs: [] as number[], againMs: [] as number[] };
  const s0 = ctx.server(0);
  for (let r = 0; r < options.rounds; r++) {
    await s0.reset();
    const out = join(ctx.out, `fixed-${r}`);
    const run = await bench(s0.url, out, ["--parallel", String(options.parallel)]);
    const stats = await s0.stats();
    if (stats.first === null || stats.last === null || stats.answered !== 400) {
      throw new Error(`perf: the bench run answered ${stats.answered} requests, not 400`);
    }
    startup.push(stats.first - run.startedAt);
    ending.push(run.exitedAt - stats.last);
    empty.push((await spawn(Deno.execPath(), [...COLD, "--empty"])).wallMs);
    const cold = await new Deno.Command(Deno.execPath(), { args: COLD, cwd: ROOT }).output();
    if (!cold.success) throw new Error(`perf: ${COLD.join(" ")} failed`);
    const figures = JSON.parse(new TextDecoder().decode(cold.stdout));
    for (const key of ["loadMs", "drawMs", "againMs"] as const) charts[key].push(figures[key]);
  }
  say(`\nfixed costs of deno task bench (workflows/llama.ts, 2,000 decisions, reports + index)`);
  say(
    `  start-up    process start → first request  ${figure(startup, { unit: " ms" })}  ${
      goal(startup, "<=", 150, "150 ms")
    }`,
  );
  say(
    `  end of run  last answer → exit             ${figure(ending, { unit: " ms" })}  ${
      goal(ending, "<=", 200, "200 ms")
    }`,
  );
  say(
    `  floors, each in a fresh process: Deno's start and exit ${
      figure(empty, { unit: " ms" })
    }; the report charts' code (Observable Plot, linkedom) loaded ${
      figure(charts.loadMs, { unit: " ms" })
    }, two charts drawn cold ${figure(charts.drawMs, { unit: " ms" })} (warm ${
      figure(charts.againMs, { unit: " ms" })
    })`,
  );
}

/** 3. Whole run at 20 ms per answer ÷ the bare loop's request time, and the smoke run. */
async function resultSection(ctx: Context): Promise<void> {
  const { options, say } = ctx;
  const s20 = ctx.server(20);
  const engine = systemOneEngine(s20.url);
  const bodies = ctx.dataset.cases.map((c) =>
    engine.build({
      state: c.state,
      questions: c.questions,
      model: "default",
      stateEncoding: "json",
    })
      .body
  );
  const ratio: number[] = [];
  const wholeMs: number[] = [];
  const smoke: number[] = [];
  const bareMs: number[] = [];
  for (let r = 0; r < options.rounds; r++) {
    const bare = await timed(() => bareLoop(engine.params.url as string, bodies, options.parallel));
    bareMs.push(bare);
    const run = await bench(s20.url, join(ctx.out, `whole-${r}`), [
      "--parallel",
      String(options.parallel),
    ]);
    wholeMs.push(run.wallMs);
    ratio.push(run.wallMs / bare);
    const out = join(ctx.out, `smoke-${r}`);
    smoke.push((await bench(ctx.server(0).url, out, ["--limit", "20"])).wallMs);
  }
  say(`\ntime to result`);
  say(
    `  whole deno task bench ÷ bare loop's request time (400 cases, 20 ms, parallel ${options.parallel}, bare ${
      figure(bareMs, { unit: " ms" })
    })`,
  );
  say(
    `      ${figure(ratio, { unit: "×", decimals: 2 })}  ${goal(ratio, "<=", 1.25, "1.25×")}`,
  );
  say(`      whole run ${figure(wholeMs, { unit: " ms" })}`);
  say(
    `  --limit 20 smoke run, wall time  ${figure(smoke, { unit: " ms" })}  ${
      goal(smoke, "<", 300, "300 ms")
    }`,
  );
}

/** The headline metric of a run.json summary, v2 (`summary.metrics`) or v1 (top level). */
function metricOf(summary: Record<string, unknown>, name: string): number | null {
  const metrics = summary.metrics as Record<string, number | null> | undefined;
  return (metrics ? metrics[name] : summary[name] as number | null | undefined) ?? null;
}

/** 4. decibench against the peer harness: 400 cases, parallel 4, whole runs, alternated. */
async function peerSection(ctx: Context): Promise<void> {
  const { options, say } = ctx;
  const python = await findPython();
  const s0 = ctx.server(0);
  const ours: number[] = [];
  const theirs: number[] = [];
  const speedup: number[] = [];
  let same = true;
  for (let r = 0; r < options.rounds; r++) {
    const mineOut = join(ctx.out, `vs-${r}`);
    const mine = await bench(s0.url, mineOut, ["--parallel", "4"]);
    const peerOut = join(ctx.out, `peer-${r}`);
    const peer = await spawn(python, [
      join(ROOT, "scripts/peer/peer.py"),
      "--url",
      s0.url,
      "--parallel",
      "4",
      "--out",
      peerOut,
    ]);
    ours.push(mine.wallMs);
    theirs.push(peer.wallMs);
    speedup.push(peer.wallMs / mine.wallMs);
    const a = JSON.parse(await Deno.readTextFile(join(mineOut, "run.json"))).summary;
    const b = JSON.parse(await Deno.readTextFile(join(peerOut, "summary.json")));
    for (const metric of ["accuracy", "kl", "brier", "ece"]) {
      const x = metricOf(a, metric);
      if (x === null || Math.abs(x - b[metric]) > 1e-9) same = false;
    }
  }
  const version = await new Deno.Command(python, {
    args: ["-c", "import sys, httpx; print(sys.version.split()[0], httpx.__version__)"],
  }).output();
  const [py, httpx] = new TextDecoder().decode(version.stdout).trim().split(" ");
  say(
    `\nagainst the peer (scripts/peer/peer.py: Python ${py}, httpx ${httpx}), 400 cases, parallel 4, whole runs`,
  );
  say(
    `  decibench ${figure(ours, { unit: " ms" })}  peer ${figure(theirs, { unit: " ms" })}  ` +
      `decibench is ${figure(speedup, { decimals: 2, unit: "×" })} faster  ${
        goal(speedup, ">=", 3, "3×")
      }`,
  );
  say(`  same accuracy, KL, Brier and ECE on every round: ${same ? "yes" : "NO"}`);
}

/** A transport under test: sends one body, resolves to the reply text. */
type Sender = (body: string) => Promise<string>;

/**
 * The transports decibench could use, on one path (POST a body, read the reply as text):
 * `fetch` (what a run uses), `node:http` with a keep-alive agent, and undici's pool (npm). Closes
 * them at the end.
 */
async function transports(url: string, parallel: number): Promise<{
  senders: Record<string, Sender>;
  close(): Promise<void>;
}> {
  const http = await import("node:http");
  const { Pool } = await import("undici");
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const pool = new Pool(target.origin, { connections: parallel });
  const headers = { "content-type": "application/json" };
  const senders: Record<string, Sender> = {
    fetch: async (body) => await (await fetch(url, { method: "POST", headers, body })).text(),
    "node:http": (body) =>
      new Promise((resolve, reject) => {
        const request = http.request({
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers: { ...headers, "content-length": String(new TextEncoder().encode(body).length) },
        }, (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => resolve(text));
          response.on("error", reject);
        });
        request.on("error", reject);
        request.end(body);
      }),
    undici: async (body) => {
      const response = await pool.request({ path: target.pathname, method: "POST", headers, body });
      return await response.body.text();
    },
  };
  return {
    senders,
    close: async () => {
      agent.destroy();
      await pool.close();
    },
  };
}

/** 6. The transport, chosen by measurement: requests per second and client CPU per request. */
async function transportSection(ctx: Context): Promise<void> {
  const { options, say } = ctx;
  const s0 = ctx.server(0);
  const engine = systemOneEngine(s0.url);
  const url = engine.params.url as string;
  const bodies = Array.from({ length: 5 }, () => ctx.dataset.cases).flat().map((c) =>
    engine.build({ state: c.state, questions: c.questions, model: "perf", stateEncoding: "json" })
      .body
  );
  const { senders, close } = await transports(url, options.parallel);
  try {
    const rate: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (let r = 0; r <= options.rounds; r++) {
      for (const [name, sender] of Object.entries(senders)) {
        let next = 0;
        const cpu0 = cpuMs();
        const ms = await timed(() =>
          Promise.all(Array.from({ length: options.parallel }, async () => {
            while (next < bodies.length) await sender(bodies[next++] as string);
          }))
        );
        if (r === 0) continue; // warm-up round
        (rate[name] ??= []).push(bodies.length / (ms / 1000));
        (cpu[name] ??= []).push((cpuMs() - cpu0) / bodies.length * 1000);
      }
    }
    say(
      `\ntransport: ${bodies.length} requests per round, parallel ${options.parallel}, 0 ms server, alternated`,
    );
    for (const name of Object.keys(senders)) {
      say(
        `  ${name.padEnd(15)} ${figure(rate[name]!, { unit: " req/s" })}  client CPU ${
          figure(cpu[name]!, { unit: " µs" })
        } per request`,
      );
    }
  } finally {
    await close();
  }
}

/** 5. Time to result over parallel 1…2N against a server with N slots (one round). */
async function curveSection(ctx: Context): Promise<void> {
  const slots = 4;
  const slotted = await startServer(ctx.options.predictor, 20, slots);
  try {
    const cases = ctx.dataset.cases.slice(0, 80);
    const workflow = validateWorkflow({
      name: "curve",
      endpoint: { baseUrl: slotted.url, model: "perf" },
    }, "curve");
    const endpoint = await prepareEndpoint(workflow.endpoint!);
    const points: string[] = [];
    for (let p = 1; p <= 2 * slots; p++) {
      const ms = await timed(() =>
        runPrepared(workflow, { dataset: ctx.dataset, cases, endpoint }, {
          outDir: join(ctx.out, `curve-${p}`),
          parallel: p,
          reports: false,
          dbPath: null,
        })
      );
      points.push(`${p}: ${Math.round(ms).toLocaleString("en-US")} ms`);
    }
    ctx.say(
      `\ntime to result over parallel 1…${
        2 * slots
      }, server with ${slots} slots, 20 ms per answer, 80 cases (one round)`,
    );
    ctx.say(`  ${points.join("  ")}`);
  } finally {
    await slotted.close();
  }
}

const USAGE =
  "usage: deno task perf [--rounds N] [--parallel N] [--predictor NAME] [--only SECTION,…]";

async function main(args: string[]): Promise<number> {
  const { values } = parse(args, {
    rounds: { type: "string" },
    parallel: { type: "string" },
    predictor: { type: "string" },
    only: { type: "string" },
  });
  const options: Options = {
    rounds: intFlag(values.rounds, "rounds", 1) ?? 5,
    parallel: intFlag(values.parallel, "parallel", 1) ?? 8,
    // uniform: the cheapest server, so the client's own cost shows most.
    predictor: typeof values.predictor === "string" ? values.predictor : "uniform",
    only: new Set(typeof values.only === "string" ? values.only.split(",") : SECTIONS),
  };
  for (const section of options.only) {
    if (!SECTIONS.includes(section)) {
      throw new UsageError(
        `--only: unknown section "${section}"; give some of ${SECTIONS.join(",")}`,
      );
    }
  }
  const dataset = await loadDataset();
  const out = await Deno.makeTempDir({ prefix: "decibench-perf-" });
  const servers = new Map<number, PerfServer>();
  try {
    for (const latency of [0, 2, 20]) {
      servers.set(latency, await startServer(options.predictor, latency));
    }
    const ctx: Context = {
      dataset,
      options,
      out,
      server: (latency) => servers.get(latency) as PerfServer,
      say: (text) => console.log(text),
    };
    ctx.say(
      `decibench perf: ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}; ` +
        `medians of ${options.rounds} alternated rounds [min–max]; reference servers ` +
        `(${options.predictor}) in their own processes`,
    );
    const sections: Record<string, (ctx: Context) => Promise<void>> = {
      phase: phaseSection,
      fixed: fixedSection,
      result: resultSection,
      peer: peerSection,
      curve: curveSection,
      transport: transportSection,
    };
    for (const name of SECTIONS) if (options.only.has(name)) await sections[name]!(ctx);
  } finally {
    for (const s of servers.values()) await s.close();
    await Deno.remove(out, { recursive: true });
  }
  return 0;
}

if (import.meta.main) await runMain(main, { usage: USAGE });
