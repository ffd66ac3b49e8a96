/**
 * `deno run -A scripts/view_bench.ts [--requests N]`: how fast `deno task view` answers over a
 * 10-run index with one 20,000-decision run (the test split's 2,000 decisions ten times over, case
 * ids suffixed `#r1`…`#r10`) and nine 2,000-decision runs, all made from one real benchmark of the
 * embedded reference server. Prints the median, p95 and slowest response time (full body read)
 * of `/`, `/api/runs`, filtered explorer pages of the big run and of a small one, and the big
 * run's page (first, uncached, then cached). A script, not a test: it prints figures.
 *
 * @module
 */
import { join } from "node:path";
import { intFlag, parse } from "../lib/cli/args.ts";
import { summarize } from "../lib/metrics/mod.ts";
import {
  type DecisionRecord,
  indexRun,
  openIndex,
  readDecisions,
  type RunJson,
} from "../lib/record/mod.ts";
import { startView } from "../lib/view/mod.ts";
import { loadWorkflow, runBenchmark } from "../lib/workflow/mod.ts";

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function timeGet(url: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  const ms = performance.now() - start;
  if (!response.ok) throw new Error(`Cannot time "${url}": status ${response.status}`);
  return ms;
}

async function main(): Promise<void> {
  const { values } = parse(Deno.args, { requests: { type: "string" } });
  const requests = intFlag(values.requests, "requests", 1) ?? 30;
  const tmp = await Deno.makeTempDir({ prefix: "decibench-view-bench-" });
  try {
    console.log("Running the reference benchmark once (400 cases, 2,000 decisions)…");
    const workflow = await loadWorkflow(
      new URL("../workflows/reference.ts", import.meta.url).pathname,
    );
    const result = await runBenchmark(workflow, { outDir: join(tmp, "source"), dbPath: null });
    const base = result.run;
    const records = await readDecisions(join(result.dir, "decisions.jsonl"));
    const dbPath = join(tmp, "decibench.db");
    const index = openIndex(dbPath);
    const at = (i: number) => new Date(Date.parse(base.started_at) - i * 60_000).toISOString();
    for (let i = 0; i < 9; i++) {
      const run: RunJson = { ...base, id: `small-${i + 1}`, started_at: at(i + 1) };
      indexRun(index, run, records);
    }
    const big: DecisionRecord[] = [];
    for (let k = 1; k <= 10; k++) {
      for (const r of records) big.push({ ...r, case: `${r.case}#r${k}` });
    }
    const bigRun: RunJson = {
      ...base,
      id: "big-20k",
      started_at: at(0),
      spec: { ...base.spec, cases: base.spec.cases * 10 },
      summary: summarize(big, { seed: base.spec.seed }),
    };
    indexRun(index, bigRun, big);
    index.close();
    console.log(`Index: 10 runs (${big.length} + 9 × ${records.length} decisions)\n`);

    const view = await startView({ port: 0, dbPath, runsDir: "" });
    try {
      // The big run's page, first opened (its report read or computed), and `/` timed meanwhile.
      const during: number[] = [];
      let pending = true;
      const firstPage = timeGet(`${view.url}/runs/big-20k`).finally(() => pending = false);
      while (pending) {
        during.push(await timeGet(`${view.url}/`));
        await new Promise((r) => setTimeout(r, 50));
      }
      const firstRunPage = await firstPage;
      const targets: [string, string][] = [
        ["/ (runs table)", "/"],
        ["/api/runs", "/api/runs"],
        [
          "explorer, 20k run: wrong at ≥ 50%, most confident first",
          "/runs/big-20k/decisions?outcome=wrong&min_conf=0.5&order=confidence",
        ],
        [
          "explorer, 20k run: one question, page 5",
          "/runs/big-20k/decisions?workflow=customer_service&question=category&page=5",
        ],
        [
          "explorer, 20k run: confident mistakes",
          "/runs/big-20k/decisions?outcome=wrong&min_conf=0.9&order=confidence",
        ],
        ["explorer, 20k run: last page", "/runs/big-20k/decisions?page=400"],
        [
          "explorer, 2k run: wrong at ≥ 50%, most confident first",
          "/runs/small-1/decisions?outcome=wrong&min_conf=0.5&order=confidence",
        ],
        ["API, 20k run: wrong at ≥ 50%", "/api/runs/big-20k/decisions?outcome=wrong&min_conf=0.5"],
        ["run page, 20k run (cached report)", "/runs/big-20k"],
      ];
      const rows: string[][] = [];
      for (const [label, path] of targets) {
        for (let i = 0; i < 3; i++) await timeGet(`${view.url}${path}`); // warm up
        const times: number[] = [];
        for (let i = 0; i < requests; i++) times.push(await timeGet(`${view.url}${path}`));
        times.sort((a, b) => a - b);
        rows.push([
          label,
          quantile(times, 0.5).toFixed(1),
          quantile(times, 0.95).toFixed(1),
          (times.at(-1) as number).toFixed(1),
        ]);
      }
      const width = Math.max(...rows.map((r) => r[0]!.length), 8);
      console.log(`${"request".padEnd(width)}  median ms  p95 ms  max ms`);
      for (const r of rows) {
        console.log(
          `${r[0]!.padEnd(width)}  ${r[1]!.padStart(9)}  ${r[2]!.padStart(6)}  ${
            r[3]!.padStart(6)
          }`,
        );
      }
      console.log(
        `\nrun page, 20k run, first request (breakdowns and charts computed): ${
          firstRunPage.toFixed(0)
        } ms`,
      );
      during.sort((a, b) => a - b);
      console.log(
        `/ meanwhile (${during.length} requests): median ${
          quantile(during, 0.5).toFixed(1)
        } ms, slowest ${(during.at(-1) ?? 0).toFixed(1)} ms`,
      );
      console.log(
        `${requests} timed requests each after 3 warm-up requests; one client, loopback.`,
      );
    } finally {
      await view.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) await main();
