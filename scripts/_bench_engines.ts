/**
 * `deno task bench` for a workflow that lists several endpoints: runs the same cases on each
 * engine, writes each run's reports and index rows, then prints the side-by-side comparison and
 * writes `comparison.md` beside `comparison.json`. With `--dry-run`, prints the exact bytes each
 * engine would send instead.
 *
 * @module
 */
import type { ReplyCache } from "../lib/client/mod.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import { join } from "node:path";
import { progressBar } from "../lib/cli/progress.ts";
import { type LoadedRun, writeAtomic } from "../lib/record/mod.ts";
import { engineComparisonText, type RunResult } from "../lib/workflow/mod.ts";
import {
  compareEngines,
  dryRunEngines,
  endpointNames,
  type RunEvent,
  type Workflow,
} from "../lib/workflow/mod.ts";
import { UsageError } from "../lib/cli/args.ts";
import { EXIT_INDEX_FAILED } from "../lib/cli/main.ts";

/** The bench command's settings that apply to a comparison. */
export interface BenchEnginesOptions {
  /** Workflow file. */
  file: string;
  /** `--base-url` for every endpoint. */
  baseUrl?: string | undefined;
  /** `--model` for every endpoint. */
  model?: string | undefined;
  /** `--parallel` (a number or `auto`). */
  parallel?: number | "auto" | undefined;
  /** `--limit`. */
  limit?: number | undefined;
  /** `--out`: the comparison directory. */
  outDir?: string | undefined;
  /** `--json`. */
  json: boolean;
  /** `--dry-run`. */
  dryRun: boolean;
  /** SQLite index path, "" for none. */
  dbPath: string;
  /** Dataset directory override (tests). */
  datasetDir?: string | undefined;
  /** The request cache (`--cache`, `--offline`). */
  cache?: ReplyCache | undefined;
  /** Called with the runs once they end (the CI reports). */
  afterRuns?: ((runs: readonly RunResult[]) => Promise<void>) | undefined;
}

/**
 * When a run is resumed, the one endpoint of a multi-endpoint workflow it belongs to (by the
 * endpoint name its run recorded), as a single-endpoint workflow the normal bench path can finish.
 *
 * @param workflow The workflow.
 * @param resume The run being resumed, if any (one engine's run directory of a comparison).
 * @returns The workflow narrowed to that endpoint, or unchanged when not resuming or when it has
 *   one endpoint.
 * @throws {UsageError} When no endpoint has the run's name.
 */
export function narrowForResume(workflow: Workflow, resume: LoadedRun | undefined): Workflow {
  const endpoints = workflow.endpoints ?? [];
  if (resume === undefined || endpoints.length < 2) return workflow;
  const names = endpointNames(endpoints);
  const index = names.indexOf(resume.run.spec.endpoint_name ?? "");
  const spec = endpoints[index];
  if (index < 0 || spec === undefined) {
    throw new UsageError(
      `Cannot resume "${resume.dir}": it was run for endpoint "${resume.run.spec.endpoint_name}", which the workflow does not list (${
        names.join(", ")
      }); resume one engine's run directory of the comparison`,
    );
  }
  return { ...workflow, endpoints: [{ ...spec, name: names[index] as string }] };
}

/**
 * Runs (or dry-runs) the comparison and prints it.
 *
 * @param workflow The workflow (several endpoints).
 * @param options Flags.
 * @returns The exit status: 0 when every run completed, met its thresholds and was indexed, 4
 *   when they did but a run could not be indexed, 130 when interrupted, 1 otherwise.
 */
export async function benchEngines(
  workflow: Workflow,
  options: BenchEnginesOptions,
): Promise<number> {
  const overrides = {
    baseUrl: options.baseUrl,
    model: options.model,
    limit: options.limit,
    ...(options.datasetDir ? { datasetDir: options.datasetDir } : {}),
  };
  if (options.dryRun) {
    const requests = await dryRunEngines(workflow, overrides);
    for (const r of requests) {
      if (options.json) console.log(JSON.stringify({ event: "request", ...r }));
      else if (r.error !== null) console.log(`# ${r.endpoint} · ${r.case}: not sent: ${r.error}\n`);
      else console.log(`# ${r.endpoint} · ${r.case}\nPOST ${r.url}\n${r.body}\n`);
    }
    if (!options.json) {
      console.error(`dry run: ${requests.length} requests printed, nothing sent`);
    }
    return 0;
  }
  using interrupt = interruptOnSignals(
    "no new requests; waiting up to 2 s for those in flight",
  );
  const bar = progressBar();
  const onEvent = (endpoint: string, event: RunEvent) => {
    if (options.json) {
      console.log(JSON.stringify({ ...event, endpoint }));
      if (event.event === "parallel") console.error(`${endpoint}: ${event.message}`);
      return;
    }
    if (event.event === "case") bar.update(event.done, event.total, endpoint);
    else if (event.event === "parallel") console.error(`${endpoint}: ${event.message}`);
    else if (event.event === "fatal") {
      bar.done();
      console.error(`decibench: ${endpoint}: ${event.message}`);
    } else if (event.event === "start") {
      console.error(`${endpoint}: run ${event.run_id}, ${event.cases} cases → ${event.dir}`);
    } else if (event.event === "summary") bar.done();
  };
  const comparison = await compareEngines(workflow, {
    ...overrides,
    parallel: options.parallel,
    outDir: options.outDir,
    workflowFile: options.file,
    signal: interrupt.signal,
    onEvent,
    dbPath: options.dbPath === "" ? null : options.dbPath,
    cache: options.cache,
  });
  bar.done();
  await options.afterRuns?.(comparison.runs);
  let failed = false;
  for (const result of comparison.runs) {
    if (result.indexError === null) continue;
    failed = true;
    console.error(`decibench: Cannot index the run in "${options.dbPath}": ${result.indexError}`);
  }
  await writeAtomic(
    join(comparison.dir, "comparison.md"),
    engineComparisonText(comparison, { markdown: true }) + "\n",
  );
  if (options.json) {
    const { runs: _runs, ...summary } = comparison;
    console.log(JSON.stringify({ event: "comparison", ...summary }));
  } else {
    console.log(engineComparisonText(comparison));
    console.log(`report      ${comparison.dir}/comparison.md`);
  }
  if (comparison.interrupted) return 130;
  const ok = comparison.runs.every((r) =>
    r.status === "completed" && r.thresholds.every((t) => t.pass !== false)
  );
  if (!ok) return 1;
  return failed ? EXIT_INDEX_FAILED : 0;
}
