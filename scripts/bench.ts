/**
 * `deno task bench [WORKFLOW] [--base-url URL] [--model M] [--parallel N] [--limit N] [--out DIR]
 * [--resume DIR] [--db PATH | --no-db] [--dry-run] [--json]`: benchmark a decision model on Typed
 * Decisions.
 *
 * Ctrl+C (SIGINT or SIGTERM) stops sending requests, gives those in flight 2 s, writes the run as
 * `interrupted` and exits 130; `--resume DIR` with the same command finishes it.
 *
 * @module
 */
import { intFlag, parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { QuestionSetError } from "../lib/dataset/mod.ts";
import { progressBar } from "../lib/cli/progress.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import {
  DEFAULT_INDEX_PATH,
  type LoadedRun,
  loadRun,
  ResumeMismatchError,
} from "../lib/record/mod.ts";
import { terminalReport } from "../lib/report/mod.ts";
import { benchEngines, narrowForResume } from "./_bench_engines.ts";
import {
  dryRunRequests,
  loadWorkflow,
  runBenchmark,
  type RunEvent,
  WorkflowError,
} from "../lib/workflow/mod.ts";

const USAGE =
  "usage: deno task bench [WORKFLOW] [--base-url URL] [--model M] [--parallel N] [--limit N] [--out DIR] [--resume DIR] [--db PATH | --no-db] [--dry-run] [--json]";

const DEFAULT_WORKFLOW = "workflows/reference.ts";

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    "base-url": { type: "string" },
    model: { type: "string" },
    parallel: { type: "string" },
    limit: { type: "string" },
    out: { type: "string" },
    resume: { type: "string" },
    db: { type: "string" },
    "no-db": { type: "boolean" },
    "dry-run": { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    throw new UsageError(`expected one workflow file, got ${positionals.length}`);
  }
  const resumeDir = stringFlag(values.resume);
  if (resumeDir !== undefined && values.out !== undefined) {
    throw new UsageError("--resume finishes the run in its own directory; drop --out");
  }
  let resume: LoadedRun | undefined;
  if (resumeDir !== undefined) {
    try {
      resume = await loadRun(resumeDir);
    } catch (error) {
      throw new UsageError(`Cannot resume: ${(error as Error).message}`);
    }
  }
  // Resuming without a workflow argument reuses the workflow file the run recorded.
  const file = positionals[0] ?? resume?.run.spec.workflow_file ?? DEFAULT_WORKFLOW;
  // Resuming one engine's run of a comparison finishes that endpoint alone.
  const workflow = narrowForResume(await loadWorkflow(file), resume);
  const dbPath = values["no-db"] === true ? "" : stringFlag(values.db) ?? DEFAULT_INDEX_PATH;
  const baseUrl = stringFlag(values["base-url"]);
  const model = stringFlag(values.model);
  const parallel = intFlag(values.parallel, "parallel", 1);
  const limit = intFlag(values.limit, "limit", 1);
  const outDir = stringFlag(values.out);
  const json = values.json === true;
  // A dataset directory other than the vendored one (tests of the integrity check).
  const datasetDir = Deno.env.get("DECIBENCH_DATASET_DIR");
  if ((workflow.endpoints?.length ?? 0) > 1) {
    // Several endpoints: the same cases on each engine, compared side by side.
    const dryRun = values["dry-run"] === true;
    const flags = { baseUrl, model, parallel, limit, outDir, datasetDir };
    return await benchEngines(workflow, { file, json, dryRun, dbPath, ...flags });
  }

  if (values["dry-run"]) {
    const requests = await dryRunRequests(workflow, {
      baseUrl,
      model,
      limit,
    });
    for (const r of requests) {
      if (json) {
        console.log(JSON.stringify({ event: "request", case: r.case, url: r.url, body: r.body }));
      } else console.log(`POST ${r.url}\n${r.body}\n`);
    }
    if (!json) console.error(`dry run: ${requests.length} requests printed, nothing sent`);
    return 0;
  }

  using interrupt = interruptOnSignals(
    "no new requests; waiting up to 2 s for those in flight",
  );
  const bar = progressBar();
  let correct = 0;
  let seen = 0;
  let errors = 0;
  const onEvent = (event: RunEvent) => {
    if (json) {
      console.log(JSON.stringify(event));
      return;
    }
    if (event.event === "case") {
      correct += event.correct;
      seen += event.questions;
      if (event.error) errors++;
      bar.update(
        event.done,
        event.total,
        `accuracy ${(correct / seen * 100).toFixed(1)}%${errors ? `  errors ${errors}` : ""}`,
      );
    } else if (event.event === "fatal") {
      bar.done();
      console.error(`decibench: ${event.message}`);
    } else if (event.event === "start") {
      console.error(
        `run ${event.run_id}: ${event.cases} cases, ${event.decisions} decisions → ${event.dir}${
          event.resumed ? ` (resumed: ${event.resumed} cases already answered)` : ""
        }`,
      );
    }
  };
  const result = await runBenchmark(workflow, {
    baseUrl,
    model,
    parallel,
    limit,
    outDir,
    workflowFile: file,
    resume,
    ...(datasetDir ? { datasetDir } : {}),
    signal: interrupt.signal,
    onEvent,
    dbPath: dbPath === "" ? null : dbPath,
  });
  bar.done();
  if (result.indexError !== null) {
    console.error(
      `decibench: Cannot index the run in "${dbPath}": ${result.indexError}; the run directory is complete, so rerun with --resume "${result.dir}" to index it`,
    );
  }
  if (!json) {
    console.log(terminalReport(result.report));
    console.log(`\nreport      ${result.dir}/report.md, ${result.dir}/report.html`);
    if (result.indexed !== null) console.log(`index       ${result.indexed}`);
  }
  if (result.status !== "completed") {
    console.error(
      `decibench: run ${result.status}; finish it with the same command plus --resume "${result.dir}"`,
    );
  }
  if (result.status === "interrupted") return 130;
  if (result.status !== "completed") return 1;
  return result.thresholds.every((t) => t.pass) ? 0 : 1;
}

if (import.meta.main) {
  await runMain(main, {
    usage: USAGE,
    usageErrors: [WorkflowError, ResumeMismatchError, QuestionSetError],
  });
}
