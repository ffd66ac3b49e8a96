/**
 * `deno task bench [WORKFLOW] [--base-url URL] [--model M] [--parallel N|auto] [--limit N] [--out DIR]
 * [--resume DIR] [--db PATH | --no-db] [--dry-run] [--json] [--repeat K [--parallel-sweep 1,4,16]]`:
 * benchmark a decision model on a question set (the workflow's own file, or Typed Decisions), with
 * `--repeat` also its stability under load
 * (`--help` lists every option).
 *
 * Ctrl+C (SIGINT or SIGTERM) stops sending requests, gives those in flight 2 s, writes the run as
 * `interrupted` and exits 130; `deno task bench --resume DIR` finishes it.
 *
 * @module
 */
import {
  type CommandSpec,
  intFlag,
  megabytesFlag,
  parseCommand,
  pathFlag,
  stringFlag,
  urlFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { resolve } from "node:path";
import { REQUEST_OPTIONS, requestFlags } from "../lib/cli/request_flags.ts";
import { deterministicLines, runFailures } from "../lib/cli/run_errors.ts";
import { EXIT_INDEX_FAILED, runMain } from "../lib/cli/main.ts";
import { QuestionSetError } from "../lib/dataset/mod.ts";
import { progressBar } from "../lib/cli/progress.ts";
import { interruptOnSignals } from "../lib/cli/signals.ts";
import {
  checkIndexFile,
  DEFAULT_INDEX_PATH,
  IndexSchemaError,
  type LoadedRun,
  loadRun,
  resolveRunDir,
  resumeCommand,
  ResumeMismatchError,
  RunDirError,
} from "../lib/record/mod.ts";
import { terminalReport } from "../lib/report/mod.ts";
import {
  dryRunRequests,
  loadWorkflow,
  runBenchmark,
  type RunEvent,
  withEndpointLimits,
  WorkflowError,
} from "../lib/workflow/mod.ts";
import {
  CacheMissSink,
  finishPipeline,
  offlineParallel,
  PIPELINE_OPTIONS,
  pipelineFlags,
} from "./_bench_pipeline.ts";
import { benchPolicy, POLICY_OPTION, policyBroken } from "./_bench_policy.ts";

const DEFAULT_WORKFLOW = "workflows/reference.ts";

const COMMAND: CommandSpec = {
  name: "bench",
  args: "[WORKFLOW]",
  summary:
    `Benchmark a decision model on a question set (the workflow's own JSONL, CSV or Parquet file)
or on Typed Decisions: one request per case, every answer scored (rows without gold are asked and
recorded, not scored), decisions.jsonl, run.json and the reports written to the run directory.
WORKFLOW defaults to ${DEFAULT_WORKFLOW} (the built-in reference server); with --resume, to the
run's own file.`,
  options: {
    "base-url": {
      type: "string",
      value: "URL",
      help: "call this server (http or https) instead of the workflow's endpoint",
    },
    "max-reply-mb": {
      type: "string",
      value: "MB",
      help:
        "most MiB of a reply read after decompression (default 16); over it the case is malformed",
    },
    model: { type: "string", value: "M", help: "model name sent with each request" },
    timeout: REQUEST_OPTIONS.timeout,
    retries: REQUEST_OPTIONS.retries,
    parallel: {
      type: "string",
      value: "N|auto",
      help:
        "requests in flight (a whole number ≥ 1), or auto: the server's slot count (/props),\nelse 4",
    },
    limit: { type: "string", value: "N", help: "ask only the first N selected cases (N ≥ 1)" },
    sample: {
      type: "string",
      value: "N",
      help:
        "ask a seeded draw of N selected cases, stratified by lane (every lane keeps a case\nwhile N allows), instead of the first N; recorded in run.json, reused by --resume",
    },
    seed: {
      type: "string",
      value: "S",
      help: "seed of the --sample draw, a whole number ≥ 0 (default the workflow's seed)",
    },
    out: {
      type: "string",
      value: "DIR",
      help: "run directory (default runs/<run-id>/); refused when it holds a run",
    },
    resume: {
      type: "string",
      value: "DIR",
      help:
        "finish the run in DIR (or a run id under runs/): its workflow file, base URL,\nmodel, parallel and case selection are reused; flags given again must agree\n(--parallel may change)",
    },
    db: { type: "string", value: "PATH", help: `SQLite run index (default ${DEFAULT_INDEX_PATH})` },
    "no-db": { type: "boolean", help: "do not write the run index" },
    "dry-run": { type: "boolean", help: "print every exact request body, send nothing" },
    json: {
      type: "boolean",
      help: "one JSON event per line on stdout (parallel, start, case, repeat, fatal, summary)",
    },
    repeat: {
      type: "string",
      value: "K",
      help:
        "stability: ask every case K times at each concurrency of --parallel-sweep\n(the official pass counts at its own); answers in repeats.jsonl, top-answer\nflips and probability drift in run.json; official scores use the first pass",
    },
    "parallel-sweep": {
      type: "string",
      value: "N,N,…",
      help: "concurrencies of the --repeat passes, e.g. 1,4,16 (default: --parallel)",
    },
    ...PIPELINE_OPTIONS,
    ...POLICY_OPTION,
  },
  more: `Exit status: 0 completed and every threshold passed; 1 incomplete, a threshold failed or
the --policy no longer holds on a lane;
2 usage, workflow or run-directory error; 3 the vendored dataset failed its integrity check;
4 completed but not added to the run index (--db); 130 interrupted (Ctrl+C: requests in flight
get 2 s, the run is written as interrupted).`,
};

/**
 * Checks the run index before the run without opening it (`checkIndexFile`): a directory, a file
 * that is not a database, an unwritable place or a newer schema is found now.
 */
function checkIndex(path: string): void {
  let isDirectory = false;
  try {
    isDirectory = Deno.statSync(path).isDirectory;
  } catch {
    // absent: created by the run
  }
  if (isDirectory) {
    throw new UsageError(
      `Cannot use --db "${path}": it is a directory; give a file path such as ${DEFAULT_INDEX_PATH}`,
    );
  }
  try {
    checkIndexFile(path);
  } catch (error) {
    const reason = (error as Error).message.replace(/\s*\(os error \d+\).*$/, "");
    // A newer schema's message says what to do itself.
    const fix = error instanceof IndexSchemaError
      ? ""
      : "; move the file away, pass --db with another file, or --no-db";
    throw new UsageError(`Cannot open the run index "${path}": ${reason}${fix}`);
  }
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length > 1) {
    throw new UsageError(
      `Cannot start the run: expected one workflow file, got ${positionals.length} (${
        positionals.map((p) => `"${p}"`).join(", ")
      })`,
    );
  }
  const resumeFlag = pathFlag(values.resume, "resume");
  // A run directory, or a run id under runs/ (as compare and export take it).
  const resumeDir = resumeFlag === undefined ? undefined : await resolveRunDir(resumeFlag);
  const outDir = pathFlag(values.out, "out");
  if (resumeDir !== undefined && outDir !== undefined && resolve(outDir) !== resolve(resumeDir)) {
    throw new UsageError(
      `Cannot use --out with --resume: a resumed run stays in its own directory "${resumeDir}"; drop --out`,
    );
  }
  if (values["no-db"] === true && values.db !== undefined) {
    throw new UsageError("Cannot use --db with --no-db: give one of them");
  }
  const dbPath = values["no-db"] === true ? "" : stringFlag(values.db) ?? DEFAULT_INDEX_PATH;
  const flagBaseUrl = urlFlag(values["base-url"], "base-url");
  const flagModel = stringFlag(values.model);
  // "auto": the server's slot count (llama-server's /props), else 4; said on stderr.
  const flagParallel = values.parallel === "auto"
    ? "auto" as const
    : intFlag(values.parallel, "parallel", 1);
  const flagLimit = intFlag(values.limit, "limit", 1);
  const flagSample = intFlag(values.sample, "sample", 1);
  const flagSeed = intFlag(values.seed, "seed", 0);
  if (flagSample !== undefined && flagLimit !== undefined) {
    throw new UsageError(
      "Cannot use --limit with --sample: --limit asks the first N cases, --sample a seeded draw of N; give one",
    );
  }
  if (flagSeed !== undefined && flagSample === undefined) {
    throw new UsageError("Cannot use --seed without --sample: it seeds the draw; add --sample N");
  }
  const json = values.json === true;
  const dryRun = values["dry-run"] === true;
  const repeat = intFlag(values.repeat, "repeat", 1);
  const parallelSweep = sweepFlag(values["parallel-sweep"]);
  if (parallelSweep !== undefined && repeat === undefined) {
    throw new UsageError(
      "Cannot use --parallel-sweep without --repeat: it sets the concurrencies of the repeated passes; add --repeat K",
    );
  }
  let resume: LoadedRun | undefined;
  if (resumeDir !== undefined) {
    try {
      resume = await loadRun(resumeDir);
    } catch (error) {
      throw new UsageError(`Cannot resume: ${(error as Error).message}`);
    }
  }
  // Resuming reuses what the run recorded: its workflow file, base URL, model, parallel and case
  // count. A flag given again overrides it, and a different value is refused by the resume check.
  const recorded = resume?.run.spec;
  const file = positionals[0] ?? recorded?.workflow_file ?? DEFAULT_WORKFLOW;
  // Resuming one engine's run of a comparison finishes that endpoint alone.
  const loaded = withEndpointLimits(await loadWorkflow(file), {
    maxReplyBytes: megabytesFlag(values["max-reply-mb"], "max-reply-mb"),
    ...requestFlags(values, recorded),
  });
  // Comparing engines needs its own module; a run of one endpoint does not load it.
  const engines = (loaded.endpoints?.length ?? 0) > 1
    ? await import("./_bench_engines.ts")
    : undefined;
  const workflow = engines ? engines.narrowForResume(loaded, resume) : loaded;
  const baseUrl = flagBaseUrl ?? recorded?.base_url ?? undefined;
  const model = flagModel ?? recorded?.model;
  const pipeline = pipelineFlags(values, workflow);
  // A resumed sample is drawn again from its recorded size and seed: the same cases.
  const sample = flagSample !== undefined
    ? { size: flagSample, seed: flagSeed ?? loaded.seed }
    : flagLimit === undefined && recorded?.sample !== undefined
    ? { size: recorded.sample.size, seed: recorded.sample.seed }
    : undefined;
  const parallel = offlineParallel(
    pipeline.cache,
    flagParallel ?? recorded?.parallel,
    workflow.parallel,
  );
  const limit = flagLimit ?? (sample === undefined ? recorded?.cases : undefined);
  // A dataset directory other than the vendored one (tests of the integrity check).
  const datasetDir = Deno.env.get("DECIBENCH_DATASET_DIR");
  if (!dryRun && dbPath !== "") checkIndex(dbPath);
  if (repeat !== undefined && (workflow.endpoints?.length ?? 0) > 1) {
    throw new UsageError(
      "Cannot use --repeat with a workflow of several endpoints: it measures one; run a workflow naming one endpoint",
    );
  }
  if (sample !== undefined && (workflow.endpoints?.length ?? 0) > 1) {
    throw new UsageError(
      "Cannot use --sample with a workflow of several endpoints: it compares them on the first cases; use --limit",
    );
  }
  // Refused before any request when it decides another question.
  const policy = await benchPolicy(values.policy, workflow, resume?.run);
  if (engines && (workflow.endpoints?.length ?? 0) > 1) {
    // Several endpoints: the same cases on each engine, compared side by side.
    const flags = { baseUrl, model, parallel, limit, outDir, datasetDir, cache: pipeline.cache };
    return await engines.benchEngines(workflow, {
      file,
      json,
      dryRun,
      dbPath,
      ...flags,
      afterRuns: (runs) => finishPipeline(runs, pipeline, new CacheMissSink(), file, json),
    });
  }

  if (dryRun) {
    const requests = await dryRunRequests(workflow, {
      baseUrl,
      model,
      limit,
      sample,
      resume,
      ...(datasetDir ? { datasetDir } : {}),
    });
    for (const r of requests) {
      if (json) {
        console.log(JSON.stringify({ event: "request", case: r.case, url: r.url, body: r.body }));
      } else console.log(`POST ${r.url}\n${r.body}\n`);
    }
    if (!json) {
      const resumed = resume
        ? ` (resuming "${resume.dir}": only the cases without a recorded answer)`
        : "";
      console.error(`dry run: ${requests.length} requests printed${resumed}, nothing sent`);
    }
    return 0;
  }

  using interrupt = interruptOnSignals(
    "no new requests; waiting up to 2 s for those in flight",
  );
  const bar = progressBar();
  // Accuracy over labelled decisions, from the kept ones on a resume; shown once there is one.
  let correct = 0;
  let labelled = 0;
  let errors = 0;
  const onEvent = (event: RunEvent) => {
    // What --parallel auto chose, and why: on stderr in both modes (an event too with --json).
    if (event.event === "parallel" || event.event === "replica") console.error(event.message);
    if (json) {
      console.log(JSON.stringify(event));
      return;
    }
    if (event.event === "case") {
      correct += event.correct;
      labelled += event.labelled;
      if (event.error) errors++;
      bar.update(
        event.done,
        event.total,
        [
          labelled > 0 ? `accuracy ${(correct / labelled * 100).toFixed(1)}%` : "",
          errors ? `errors ${errors}` : "",
        ].filter(Boolean).join("  "),
      );
    } else if (event.event === "repeat") {
      console.error(
        `repeat pass ${event.pass} at parallel ${event.parallel}: ${event.cases} cases${
          event.errors ? `, ${event.errors} errors` : ""
        }`,
      );
    } else if (event.event === "fatal") {
      bar.done(); // the message is printed once, after the report
    } else if (event.event === "start") {
      correct = event.kept_correct;
      labelled = event.kept_labelled;
      console.error(
        `run ${event.run_id}: ${event.cases} cases${
          event.sample
            ? ` (a sample of ${event.sample.population}, seed ${event.sample.seed}, stratified by lane)`
            : ""
        }, ${event.decisions} decisions → ${event.dir}${
          event.resumed ? ` (resumed: ${event.resumed} cases already answered)` : ""
        }`,
      );
    }
  };
  const misses = new CacheMissSink();
  const result = await runBenchmark(workflow, {
    baseUrl,
    model,
    parallel,
    limit,
    sample,
    outDir: resume === undefined ? outDir : undefined,
    workflowFile: file,
    resume,
    ...(datasetDir ? { datasetDir } : {}),
    repeat,
    parallelSweep,
    signal: interrupt.signal,
    onEvent,
    dbPath: dbPath === "" ? null : dbPath,
    cache: pipeline.cache,
    sinks: [misses],
    policy,
  });
  bar.done();
  if (result.discarded) {
    // Nothing was answered: no run directory, no index row, nothing to resume.
    console.error(
      `decibench: ${result.fatal}; nothing was answered, so no run directory was kept: run the same command again`,
    );
    return 1;
  }
  await finishPipeline(result, pipeline, misses, file, json);
  if (result.indexError !== null) {
    console.error(
      `decibench: Cannot index the run in "${dbPath}": ${result.indexError}; the run directory is complete, so index it with ${
        resumeCommand(result.dir, { db: dbPath })
      }`,
    );
  }
  if (!json) {
    console.log(terminalReport(result.report));
    console.log(`\nreport      ${result.dir}/report.md, ${result.dir}/report.html`);
    if (result.indexed !== null) console.log(`index       ${result.indexed}`);
  }
  if (result.fatal !== null) console.error(`decibench: ${result.fatal}`);
  const broken = policyBroken(result.run, json);
  // No resume hint after a refused key, an endpoint without decision models or a server that is not
  // one: resuming would ask the same server again. An unreachable server is resumed once it is up
  // (or with the right --base-url: a run with no answered case may change its endpoint).
  const hopeless = result.fatalKind === "endpoint" || result.fatalKind === "not_a_server";
  // Cases the server refused as such (413 too large, 400 invalid) fail the same way when asked
  // again: they are named, and a resume is suggested only when other cases could still answer.
  const failures = result.status === "incomplete" && result.fatalKind === null
    ? await runFailures(result.dir)
    : null;
  if (failures !== null) {
    for (const line of deterministicLines(failures)) console.error(`decibench: ${line}`);
  }
  const resumable = failures === null || failures.otherCases > 0;
  if (result.status !== "completed" && !hopeless && resumable) {
    console.error(
      `decibench: run ${result.status}; finish it with: ${
        resumeCommand(result.dir, { db: dbPath })
      }`,
    );
  }
  if (result.status === "interrupted") return 130;
  if (result.status !== "completed") return 1;
  // A threshold not evaluated (pass null) neither passes nor fails.
  if (result.thresholds.some((t) => t.pass === false) || broken.length > 0) return 1;
  return result.indexError === null ? 0 : EXIT_INDEX_FAILED;
}

/** `--parallel-sweep 1,4,16`: a comma list of concurrencies ≥ 1. */
function sweepFlag(value: unknown): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = String(value).split(",").map((p) => p.trim());
  const numbers = parts.map(Number);
  if (numbers.some((n, i) => parts[i] === "" || !Number.isInteger(n) || n < 1)) {
    throw new UsageError(
      `Cannot use --parallel-sweep "${
        String(value)
      }": give a comma list of whole numbers ≥ 1, e.g. 1,4,16`,
    );
  }
  return numbers;
}

if (import.meta.main) {
  await runMain(main, {
    usage: usageLine(COMMAND),
    usageErrors: [WorkflowError, ResumeMismatchError, RunDirError, RangeError, QuestionSetError],
  });
}
