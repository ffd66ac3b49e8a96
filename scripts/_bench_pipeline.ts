/**
 * The pipeline flags of `bench` and `gate`: the request cache (`--cache`, `--cache-dir`,
 * `--offline`) and the CI reports (`--junit FILE`, `--github`).
 *
 * @module
 */
import { join } from "node:path";
import { type OptionSpec, pathFlag, UsageError } from "../lib/cli/args.ts";
import { defaultCacheDir, FALLBACK_PARALLEL, ReplyCache } from "../lib/client/mod.ts";
import { type AnsweredCase, readDecisionLines, type RunSink } from "../lib/record/mod.ts";
import { githubOutputOn, thresholdChecks, writeCiReports } from "../lib/report/mod.ts";
import type { RunResult, Workflow } from "../lib/workflow/mod.ts";
import { runPolicyChecks } from "./_bench_policy.ts";

/** The CI report flags, shared by `bench` and `gate`. */
export const CI_OPTIONS: Record<string, OptionSpec> = {
  junit: {
    type: "string",
    value: "FILE",
    help:
      "write JUnit XML: one test case per threshold (bench) or lane (gate), and per\nlane of a --policy",
  },
  github: {
    type: "boolean",
    help:
      "GitHub annotations for each test case and the summary appended to\n$GITHUB_STEP_SUMMARY (on by default when GITHUB_ACTIONS=true)",
  },
};

/** The request cache flags, shared by `bench` and `gate`. */
export const CACHE_OPTIONS: Record<string, OptionSpec> = {
  cache: {
    type: "boolean",
    help:
      "answer from the request cache and store new replies there (also cache: true in\nthe workflow)",
  },
  "cache-dir": {
    type: "string",
    value: "DIR",
    help:
      "the request cache's folder (default $XDG_CACHE_HOME/decibench or ~/.cache/decibench);\nimplies --cache",
  },
  offline: {
    type: "boolean",
    help: "answer only from the request cache: nothing is sent, a miss is a case error",
  },
};

/** The flags, merged into `bench`'s and `gate`'s options. */
export const PIPELINE_OPTIONS: Record<string, OptionSpec> = { ...CACHE_OPTIONS, ...CI_OPTIONS };

/** What the pipeline flags ask for. */
export interface PipelineFlags {
  /** The request cache, or undefined. */
  cache: ReplyCache | undefined;
  /** The JUnit file, or undefined. */
  junit: string | undefined;
  /** GitHub annotations and step summary. */
  github: boolean;
}

/**
 * Reads the pipeline flags.
 *
 * @param values Parsed flags.
 * @param workflow The workflow (its `cache`).
 * @returns The cache, JUnit file and GitHub output.
 * @throws {UsageError} When `--cache-dir` is empty or no cache folder can be found.
 */
export function pipelineFlags(
  values: Record<string, unknown>,
  workflow: Pick<Workflow, "cache">,
): PipelineFlags {
  const offline = values.offline === true;
  const dir = pathFlag(values["cache-dir"], "cache-dir");
  const wanted = offline || values.cache === true || workflow.cache === true || dir !== undefined;
  let cache: ReplyCache | undefined;
  if (wanted) {
    try {
      cache = new ReplyCache(dir ?? defaultCacheDir(), { offline });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  return { cache, ...ciFlags(values) };
}

/**
 * Reads `--junit` and `--github` (on by default when `GITHUB_ACTIONS=true`).
 *
 * @param values Parsed flags.
 * @returns The JUnit file and whether GitHub output is on.
 * @throws {UsageError} When `--junit` is empty.
 */
export function ciFlags(values: Record<string, unknown>): Pick<PipelineFlags, "junit" | "github"> {
  return {
    junit: pathFlag(values.junit, "junit"),
    github: githubOutputOn(values.github === true ? true : undefined),
  };
}

/**
 * The concurrency of an offline run: `auto` asks the server its slot count, which is a request,
 * so offline it is 4.
 *
 * @param cache The request cache.
 * @param parallel `--parallel`, when given.
 * @param workflow The workflow's `parallel`.
 * @returns The concurrency to pass on, or `parallel` unchanged.
 */
export function offlineParallel(
  cache: ReplyCache | undefined,
  parallel: number | "auto" | undefined,
  workflow: number | "auto",
): number | "auto" | undefined {
  if (cache?.offline !== true) return parallel;
  const chosen = parallel ?? workflow;
  return chosen === "auto" ? FALLBACK_PARALLEL : chosen;
}

/** Collects the cases the cache could not answer offline. */
export class CacheMissSink implements RunSink {
  /** Case ids, in the order they were asked. */
  readonly misses: string[] = [];

  /** @param answered One answered case. */
  case(answered: AnsweredCase): void {
    if (answered.records.some((r) => r.error?.kind === "cache_miss")) {
      this.misses.push(answered.item.id);
    }
  }
}

/** The cases one endpoint's run could not answer offline. */
export interface CacheMisses {
  /** The endpoint's name (a workflow of several endpoints), or null for the one endpoint. */
  endpoint: string | null;
  /** Case ids, in the order they were asked. */
  cases: readonly string[];
}

/**
 * Says on stderr what the request cache did (answered, stored, a write error) and names the
 * cases it could not answer offline (the first 20 of each endpoint).
 *
 * @param cache The request cache, or undefined (then nothing is said).
 * @param misses The offline misses, per endpoint.
 */
export function reportCache(cache: ReplyCache | undefined, misses: readonly CacheMisses[]): void {
  if (cache === undefined) return;
  const { hits, stored } = cache.counts;
  console.error(
    `request cache ${cache.dir}: ${hits} answered from the cache, ${stored} stored${
      cache.offline ? " (offline: nothing sent)" : ""
    }`,
  );
  if (cache.writeError !== null) console.error(`decibench: ${cache.writeError}`);
  for (const { endpoint, cases } of misses) {
    if (cases.length === 0) continue;
    const shown = cases.slice(0, 20).join(", ");
    console.error(
      `decibench: ${
        endpoint !== null ? `${endpoint}: ` : ""
      }Cannot answer ${cases.length} cases offline: the request cache holds no reply for them (${shown}${
        cases.length > 20 ? ", …" : ""
      }); run once with --cache and without --offline to fill it`,
    );
  }
}

/**
 * The cases of a run's records that the cache could not answer offline (error kind
 * `cache_miss`), streamed.
 *
 * @param file The run's `decisions.jsonl`.
 * @returns Case ids, once each, in file order; none when the file is absent.
 * @throws {Error} When the file exists but cannot be read.
 */
export async function cacheMissesIn(file: string): Promise<string[]> {
  const found = new Set<string>();
  for await (const { record } of readDecisionLines(file)) {
    if (record.error?.kind === "cache_miss") found.add(record.case);
  }
  return [...found];
}

/**
 * After a run: says what the cache did (on stderr), names the offline misses, and writes the CI
 * reports.
 *
 * @param result The run, or the runs of a workflow of several endpoints.
 * @param flags The pipeline flags.
 * @param misses The offline misses.
 * @param file The workflow file.
 * @param json True with `--json` (annotations then go to stderr).
 */
export async function finishPipeline(
  result: RunResult | readonly RunResult[],
  flags: PipelineFlags,
  misses: CacheMissSink,
  file: string,
  json: boolean,
): Promise<void> {
  const results: readonly RunResult[] = Array.isArray(result) ? result : [result];
  if (Array.isArray(result) && flags.cache?.offline === true) {
    // Several endpoints: each run's misses, read back from its records, named per endpoint.
    const named = await Promise.all(results.map(async (r) => ({
      endpoint: r.run.spec.endpoint_name ?? r.run.spec.endpoint,
      cases: await cacheMissesIn(join(r.dir, "decisions.jsonl")),
    })));
    reportCache(flags.cache, named);
  } else {
    reportCache(flags.cache, [{ endpoint: null, cases: misses.misses }]);
  }
  if (flags.junit === undefined && !flags.github) return;
  const several = results.length > 1;
  const first = results[0];
  if (first === undefined) return;
  const passed = results.flatMap((r) => r.thresholds).filter((t) => t.pass).length;
  const total = results.reduce((n, r) => n + r.thresholds.length, 0);
  await writeCiReports(
    results.map((r) => ({
      // One suite per endpoint when the workflow compares several.
      name: `decibench bench ${r.run.spec.workflow}${
        several ? ` ${r.run.spec.endpoint_name ?? r.run.spec.endpoint}` : ""
      }`,
      checks: [
        ...thresholdChecks(r.thresholds),
        ...runPolicyChecks(r.run),
      ],
    })),
    {
      junit: flags.junit,
      github: flags.github,
      file,
      // With --json, stdout holds JSON events only: the annotations go to stderr.
      ...(json ? { print: (line: string) => console.error(line) } : {}),
      title: `decibench bench ${first.run.spec.workflow}: ${
        results.every((r) => r.status === first.status) ? first.status : "mixed"
      }`,
      lines: [
        ...results.map((r) => {
          const summary = r.run.summary;
          const accuracy = summary?.metrics.accuracy;
          return `run \`${r.id}\` · ${r.run.spec.endpoint} · model ${r.run.spec.model} · ${
            summary?.cases ?? 0
          } cases, ${summary?.errors ?? 0} errors${
            typeof accuracy === "number" ? `, accuracy ${(accuracy * 100).toFixed(1)}%` : ""
          }`;
        }),
        `${passed} of ${total} thresholds passed`,
      ],
    },
  );
}
