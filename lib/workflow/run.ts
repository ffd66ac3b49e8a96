/**
 * The run loop: dataset → request → transport → answer → score → record, the last step a set of
 * sinks (`RunSink`) fed case by case. The live monitor and the engine comparison reuse its steps
 * (`prepareEndpoint`, `askCase`, `decisionRecords`).
 *
 * @module
 */
import { join } from "node:path";
import type { Case, Dataset, QuestionSet } from "../dataset/mod.ts";
import {
  askCase,
  type AskOptions,
  chooseParallel,
  createEngine,
  endpointIdentity,
  type Engine,
  FALLBACK_PARALLEL,
  isTransientKind,
  pool,
  REPLICA_EXCLUDE_AFTER,
  type ReplyCache,
  tryBuild,
  watchReplies,
} from "../client/mod.ts";
import {
  type AnsweredCase,
  answeredCases,
  compactDecisions,
  decisionRecords,
  DEFAULT_INDEX_PATH,
  fingerprint,
  KeptDecisions,
  type LoadedRun,
  lockRunDir,
  readDecisions,
  ResumeMismatchError,
  RUN_JSON_VERSION,
  runId,
  type RunJson,
  type RunPolicySink,
  RunRecorder,
  type RunSession,
  type RunSink,
  type RunSpec,
  scanDecisions,
  specDifferences,
  type ThresholdResult,
  writeAtomic,
  writeFailure,
} from "../record/mod.ts";
import { ReportSink, type RunReport, TRACE_PART_FILE } from "../report/mod.ts";
import type { Summary } from "../metrics/mod.ts";
import { TOOL_NAME, TOOL_VERSION } from "../version.ts";
import { loadCases, openCases, selectCases } from "./cases.ts";
import { type CaseSource, caseSourceOf, questionSetSource } from "./case_source.ts";
import { RunAccumulator } from "./_collect.ts";
import { replicaSetFor } from "./_replicas.ts";
import { ProgressSink } from "./_progress.ts";
import { IndexSink } from "./_run_index.ts";
import { runRepeats } from "./stability.ts";
import { askCacheFor } from "./request_cache.ts";
import { baselineThresholds, checkBaselines } from "./baseline.ts";
import { WorkflowError } from "./load.ts";
import type { EndpointSpec, Workflow } from "./schemas.ts";
import { checkThresholdTargets, markNotEvaluated } from "./thresholds.ts";
import type { SampleSpec } from "./sample.ts";

/** Machine-readable progress events (`--json` prints one per line). */
export type RunEvent =
  | {
    event: "start";
    run_id: string;
    dir: string;
    workflow: string;
    endpoint: string;
    model: string;
    cases: number;
    decisions: number;
    fingerprint: string;
    resumed: number;
    /** Correct decisions among the kept cases' (a resume). */
    kept_correct: number;
    /** Labelled decisions (with gold) among the kept cases'. */
    kept_labelled: number;
    /** The `--sample` draw: `size` cases drawn with `seed` from `population`. */
    sample?: { size: number; seed: number; population: number };
  }
  | {
    event: "case";
    case: string;
    workflow: string;
    done: number;
    total: number;
    correct: number;
    questions: number;
    /** Decisions of the case with gold (the others are in no accuracy). */
    labelled: number;
    error: string | null;
    attempts: number;
    latency_ms: number | null;
  }
  | {
    event: "parallel";
    parallel: number;
    source: "server" | "fallback";
    message: string;
  }
  | { event: "fatal"; message: string }
  | { event: "replica"; url: string; live: number; message: string }
  | { event: "repeat"; parallel: number; pass: number; cases: number; errors: number }
  | {
    event: "summary";
    run_id: string;
    status: RunJson["status"];
    dir: string;
    summary: Summary;
    thresholds: ThresholdResult[];
  };

/** Options for `runBenchmark`. */
export interface RunOptions {
  /** Overrides the endpoint's base URL (`--base-url`). @default undefined */
  baseUrl?: string | undefined;
  /** Overrides the model (`--model`). @default undefined */
  model?: string | undefined;
  /**
   * Overrides `parallel` (`--parallel N` or `--parallel auto`: the server's slot count, else 4).
   * @default undefined (the workflow's)
   */
  parallel?: number | "auto" | undefined;
  /** Overrides the case limit (`--limit`). @default undefined */
  limit?: number | undefined;
  /**
   * A seeded draw of cases stratified by lane instead of the first ones (`--sample N --seed S`),
   * recorded in the run's `spec.sample`; not given with `limit`.
   * @default undefined (no sample)
   */
  sample?: SampleSpec | undefined;
  /** Run directory (`--out`); default `<output.dir>/<run-id>`. @default undefined */
  outDir?: string | undefined;
  /** Path of the workflow file, recorded in the run. @default null */
  workflowFile?: string | null | undefined;
  /**
   * Stops sending new requests when aborted (Ctrl+C); requests in flight get `graceMs` to finish,
   * then are abandoned (their cases stay unasked) and the run ends `interrupted`.
   * @default undefined
   */
  signal?: AbortSignal | undefined;
  /** How long requests in flight may finish after `signal` aborts, in ms. @default 2000 */
  graceMs?: number | undefined;
  /**
   * Keep the directory of a new run stopped before any answer by a refused key or an unreachable
   * endpoint (see `RunResult.discarded`); an engine comparison keeps it to read it back.
   * @default false
   */
  keepUnanswered?: boolean | undefined;
  /**
   * Finish this earlier run (`--resume`): same id and directory, its answered cases kept and not
   * asked again. Refused with a `ResumeMismatchError` when the configuration differs.
   * @default undefined
   */
  resume?: LoadedRun | undefined;
  /**
   * Consecutive cases failing with network errors (after their retries) that stop the run as
   * "endpoint unreachable": a dead server ends the run `incomplete` instead of failing every case.
   * @default 5
   */
  unreachableAfter?: number | undefined;
  /** Receives progress events. @default undefined */
  onEvent?: (event: RunEvent) => void | undefined;
  /** Reads environment variables (for the API key). @default Deno.env.get */
  env?: ((name: string) => string | undefined) | undefined;
  /** Dataset directory (tests). @default the vendored one */
  datasetDir?: string | undefined;
  /** Backoff base for retries in ms. @default 250 */
  backoffMs?: number | undefined;
  /**
   * The SQLite index the finished run is added to; null leaves the index alone (`--no-db`).
   * @default "runs/decibench.db"
   */
  dbPath?: string | null | undefined;
  /** Write `report.md` and `report.html` into the run directory when the run ends. @default true */
  reports?: boolean | undefined;
  /**
   * More sinks fed after the run's own (records, accumulator, index, report, progress): told of
   * the run's start, each answered case and its end. A sink that throws stops the run.
   * @default []
   */
  sinks?: readonly RunSink[] | undefined;
  /**
   * Stability passes (`--repeat K`): ask every case K times at each concurrency of
   * `parallelSweep`, the official pass included; recorded in `repeats.jsonl` and summarised in
   * `run.json`'s `stability`. The official scores use the first pass only.
   * @default undefined (no repeats)
   */
  repeat?: number | undefined;
  /** Concurrencies of the stability passes (`--parallel-sweep`). @default [parallel] */
  parallelSweep?: readonly number[] | undefined;
  /**
   * The request cache (`--cache`, `--offline`): replies read from it are recorded `cached`;
   * each stability pass has its own entries.
   * @default undefined (no cache)
   */
  cache?: ReplyCache | undefined;
  /**
   * A decision policy applied to the answers after they arrive (`--policy`; nothing sent changes):
   * `policyRunSink` of `decibench/audit` builds it. Its section is `run.json`'s `policy`.
   * @default undefined (no policy)
   */
  policy?: RunPolicySink | undefined;
}

/** The result of a run. */
export interface RunResult {
  /** Run id. */
  id: string;
  /** Run directory. */
  dir: string;
  /** Final status. */
  status: RunJson["status"];
  /** The summary. */
  summary: Summary;
  /** Threshold results. */
  thresholds: ThresholdResult[];
  /** The run record as written. */
  run: RunJson;
  /** The message that ended the run early, or null. */
  fatal: string | null;
  /**
   * Why the run stopped early: `unreachable` (network errors in a row: resuming, once the server
   * is up or with the right `--base-url`, finishes it), `unanswered` (the endpoint's
   * `stopAfterFailures` requests in a row failed with transient errors — 429, 529, 5xx, timeout,
   * network — and none was answered: resume once the server answers), `endpoint` (a refused key or an endpoint
   * that serves no decision model) or `not_a_server` (replies that are not System One at all);
   * null when it did not stop early.
   */
  fatalKind: "unreachable" | "unanswered" | "endpoint" | "not_a_server" | null;
  /** Where the run's cases came from (`info`; the cases themselves are not kept). */
  dataset: Pick<Dataset, "info">;
  /** The report model (summary and breakdowns, computed once) the reports were written from. */
  report: RunReport;
  /** The index the run was added to, or null when it was not indexed. */
  indexed: string | null;
  /**
   * Why the run could not be added to the index, or null. The run directory is complete either
   * way; the exit status does not depend on it.
   */
  indexError: string | null;
  /**
   * True when a new run stopped before any answer on a refused key or an unreachable endpoint:
   * nothing was worth keeping, so its directory and index row were removed (`dir` no longer
   * exists, and there is nothing to resume).
   */
  discarded: boolean;
}

/** An endpoint ready to be asked. */
export interface PreparedEndpoint {
  /** Endpoint spec with overrides applied. */
  spec: EndpointSpec;
  /** The engine. */
  engine: Engine;
  /** Base URL actually used. */
  baseUrl: string;
  /** Model sent. */
  model: string;
  /** Bearer key, when configured. Never recorded. */
  apiKey: string | undefined;
  /** True when `prepareEndpoint` started the embedded reference server for it. @default false */
  embedded?: boolean | undefined;
  /**
   * One engine per server when the run spreads over `endpoint.replicas` (the first is `engine`).
   * @default undefined (one server)
   */
  replicas?: readonly Engine[] | undefined;
  /** Stops the embedded server, when one was started. */
  close(): Promise<void>;
}

/** Options for `prepareEndpoint`. */
export interface PrepareEndpointOptions {
  /** Overrides the base URL. @default undefined */
  baseUrl?: string | undefined;
  /** Overrides the model. @default undefined */
  model?: string | undefined;
  /** Reads environment variables. @default Deno.env.get */
  env?: ((name: string) => string | undefined) | undefined;
  /**
   * The question set the run asks, loaded or opened. With a user question set, the embedded
   * `oracle` answers its gold (an opened set is read whole for it), and any other embedded
   * predictor is checked to answer its questions before the run (on its first case).
   * @default undefined (Typed Decisions)
   */
  questionSet?: Dataset | QuestionSet | undefined;
}

/**
 * Resolves an endpoint: starts the embedded reference server when the spec asks for it (and no
 * `--base-url` overrides it), reads the key from its environment variable, creates the engine.
 * With a user question set, the embedded `oracle` answers that set's gold (one-hot for hard
 * labels), and a predictor that cannot answer its questions (`fitted` and `prior` answer Typed
 * Decisions questions only) is refused before anything is sent.
 *
 * @param spec The endpoint spec.
 * @param options Overrides and the question set.
 * @returns The prepared endpoint; call `close()` when done.
 * @throws {WorkflowError} When a required key variable is unset, the URL is invalid, or the
 *   embedded predictor cannot answer the question set.
 */
export async function prepareEndpoint(
  spec: EndpointSpec,
  options: PrepareEndpointOptions = {},
): Promise<PreparedEndpoint> {
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  let apiKey: string | undefined;
  if (spec.apiKeyEnv) {
    apiKey = env(spec.apiKeyEnv) || undefined;
    if (!apiKey && spec.apiKeyRequired) {
      throw new WorkflowError(
        `Cannot start the run: environment variable "${spec.apiKeyEnv}" is not set; export it with the API key`,
      );
    }
  }
  // Replicas, unless --base-url names one server; they take the place of baseUrl and reference.
  const replicaUrls = options.baseUrl === undefined ? spec.replicas : undefined;
  let baseUrl = options.baseUrl ?? replicaUrls?.[0] ?? spec.baseUrl;
  let close = (): Promise<void> => Promise.resolve();
  const embedded = options.baseUrl === undefined && replicaUrls === undefined &&
    spec.reference !== undefined;
  if (embedded && spec.reference) {
    const { startReferenceServer, createPredictor, createPredictorForCases, oraclePredictor } =
      await import("../server/mod.ts");
    const set = options.questionSet;
    const name = spec.reference.predictor;
    let predictor: string | Awaited<ReturnType<typeof createPredictor>> = name;
    // A predictor built over the question set's cases (`synthetic`) reads them once here.
    const overCases = set === undefined ? null : await createPredictorForCases(
      name,
      "count" in set ? set.cases() : set.cases,
      {
        skill: spec.reference.skill,
        temperature: spec.reference.temperature,
        seed: spec.reference.seed,
      },
    ).catch((error) => {
      throw error instanceof RangeError
        ? new WorkflowError(`Cannot start the embedded reference server: ${error.message}`)
        : error;
    });
    if (overCases !== null) predictor = overCases;
    else if (set?.info.questionSet !== undefined) {
      const gold = set.info.questionSet.kind === "file" && name === "oracle";
      const cases = "count" in set
        ? gold ? await Array.fromAsync(set.cases()) : await firstCases(set.cases())
        : set.cases;
      predictor = gold ? oraclePredictor(cases) : await createPredictor(name);
      const sample = cases[0];
      try {
        if (sample) predictor.predict(sample.state, sample.questions);
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new WorkflowError(
          `Cannot start the embedded reference server for this question set: ${error.message}; set reference: { predictor: "uniform" } (or "oracle") in the workflow, or give --base-url`,
        );
      }
    }
    const server = await startReferenceServer({
      predictor,
      faults: spec.reference.faults,
      seed: spec.reference.seed,
      latencyMs: spec.reference.latencyMs,
      apiKey,
    });
    baseUrl = server.url;
    close = () => server.close();
  }
  if (baseUrl === undefined) throw new TypeError("Cannot start the run: the endpoint has no URL");
  const model = options.model ?? spec.model;
  try {
    const engine = createEngine({ engine: spec.engine, baseUrl, model, headers: spec.headers });
    const replicas = replicaUrls === undefined ? undefined : [
      engine,
      ...replicaUrls.slice(1).map((url) =>
        createEngine({ engine: spec.engine, baseUrl: url, model, headers: spec.headers })
      ),
    ];
    return { spec, engine, baseUrl, model, apiKey, embedded, close, replicas };
  } catch (error) {
    await close();
    // A refused base URL (not http(s), credentials, unparseable) is the user's input to fix.
    throw error instanceof TypeError ? new WorkflowError(error.message) : error;
  }
}

/** The first case of a stream (the rest is not read), as a list of at most one. */
async function firstCases(cases: AsyncIterable<Case>): Promise<Case[]> {
  for await (const item of cases) return [item];
  return [];
}

/** Options for `describeRun`. */
export interface DescribeRunOptions {
  /** Workflow file path. @default null */
  workflowFile?: string | null | undefined;
  /** Requests in flight. @default the workflow's (`FALLBACK_PARALLEL` when it is `"auto"`) */
  parallel?: number | undefined;
}

/**
 * The spec of a run: what it asks, of whom, and its fingerprint.
 *
 * @param workflow The workflow.
 * @param context Dataset, selected cases (an array, or a `CaseSource` with its digests) and
 *   prepared endpoint.
 * @param options File and parallelism.
 * @returns The run spec.
 */
export async function describeRun(
  workflow: Workflow,
  context: {
    dataset: Pick<Dataset, "info">;
    cases: readonly Case[] | CaseSource;
    endpoint: PreparedEndpoint;
  },
  options: DescribeRunOptions = {},
): Promise<RunSpec> {
  const { dataset, endpoint } = context;
  const source = caseSourceOf(context.cases);
  const reference = endpoint.embedded && endpoint.spec.reference ? endpoint.spec.reference : null;
  const identity = preparedIdentity(endpoint);
  const { caseIdsSha256, questionsSha256 } = await source.digests();
  const questionSet = dataset.info.questionSet;
  return {
    workflow: workflow.name,
    workflow_file: options.workflowFile ?? null,
    endpoint: identity,
    // The base URL called (no credentials, query or fragment), so `--resume DIR` can call it again.
    base_url: reference ? null : baseUrlOf(endpoint.baseUrl),
    endpoint_name: endpoint.spec.name ?? null,
    engine: endpoint.engine.name,
    model: endpoint.model,
    state_encoding: endpoint.spec.stateEncoding,
    reference: reference ? { ...reference } : null,
    dataset: dataset.info.dataset,
    revision: dataset.info.revision,
    split: dataset.info.split,
    license: dataset.info.license,
    cases: source.count,
    case_ids_sha256: caseIdsSha256,
    questions_sha256: questionsSha256,
    parallel: options.parallel ??
      (workflow.parallel === "auto" ? FALLBACK_PARALLEL : workflow.parallel),
    timeout_ms: endpoint.spec.timeoutMs,
    retries: endpoint.spec.retries,
    calibrated: endpoint.engine.calibrated,
    fingerprint: await fingerprint({
      dataset: dataset.info.dataset,
      revision: dataset.info.revision,
      endpoint: identity,
      engine: endpoint.engine.name,
      model: endpoint.model,
      questionsSha256,
      stateEncoding: endpoint.spec.stateEncoding,
      ...(questionSet !== undefined ? { questionSet: questionSetIdentity(questionSet) } : {}),
    }),
    seed: workflow.seed,
    ...(questionSet !== undefined ? { question_set: questionSet } : {}),
  };
}

/** A base URL without credentials, query or fragment; null when it cannot be parsed. */
function baseUrlOf(base: string): string | null {
  try {
    const url = new URL(base);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
}

/**
 * What of a question set enters the fingerprint: for a subset of Typed Decisions, the questions
 * asked; for a user file, its sha256, row count and the question definitions with the field
 * mapping (the labelled counts follow from the file).
 */
function questionSetIdentity(record: NonNullable<RunSpec["question_set"]>): string {
  return record.kind === "file"
    ? JSON.stringify([record.kind, record.sha256, record.rows, record.definitions_sha256])
    : JSON.stringify([record.kind, record.questions]);
}

/**
 * The identity of a prepared endpoint as run records name it: `scheme://host:port/path` (never
 * credentials), or for the embedded reference server (a new port each time) what answers.
 *
 * @param endpoint The prepared endpoint.
 * @returns The identity, e.g. `http://127.0.0.1:8080/v1/systemone` or `embedded:reference/uniform`.
 */
export function preparedIdentity(endpoint: PreparedEndpoint): string {
  if (endpoint.embedded && endpoint.spec.reference) {
    return embeddedIdentity(endpoint.spec.reference);
  }
  return endpointIdentity(endpoint.engine.url);
}

/**
 * The endpoint identity of the embedded reference server: its predictor, its faults and seed
 * when it injects faults, and the `synthetic` predictor's skill, temperature and seed (they
 * change the answers). Stable across runs, unlike its port.
 *
 * @param reference The workflow's `reference` spec.
 * @returns e.g. `embedded:reference/uniform`.
 */
export function embeddedIdentity(
  reference: {
    predictor: string;
    faults?: string | undefined;
    seed?: number | undefined;
    skill?: number | undefined;
    temperature?: number | undefined;
  },
): string {
  const base = `embedded:reference/${reference.predictor}`;
  // The synthetic predictor's settings change its answers, so they name the endpoint.
  const synthetic = reference.predictor === "synthetic"
    ? {
      skill: String(reference.skill ?? 1),
      temperature: String(reference.temperature ?? 1),
      seed: String(reference.seed ?? 0),
    }
    : undefined;
  if (!reference.faults && !synthetic) return base;
  const query = new URLSearchParams({
    ...synthetic,
    ...(reference.faults ? { faults: reference.faults, seed: String(reference.seed ?? 0) } : {}),
  });
  return `${base}?${query}`;
}

/**
 * Runs a workflow's (first) endpoint over the selected cases, appending decisions as each case is
 * answered and writing `run.json` at the start and the end.
 *
 * @param workflow The validated workflow.
 * @param options Overrides, signal and event sink.
 * @returns The run result.
 * @throws {DatasetIntegrityError} Before any request when the vendored data fails its check.
 * @throws {QuestionSetError} Before any request (and before the run directory is made) when the
 *   workflow's own question set file is missing or a row breaks its declaration.
 * @throws {WorkflowError} When a threshold names a question or lane no selected case has, or the
 *   embedded predictor cannot answer the question set.
 */
export async function runBenchmark(
  workflow: Workflow,
  options: RunOptions = {},
): Promise<RunResult> {
  const spec = workflow.endpoint ?? workflow.endpoints?.[0];
  if (!spec) throw new TypeError("Cannot run: the workflow has no endpoint");
  const { dataset, cases, selection } = await runCases(workflow, spec, options);
  // A baseline made on another question set is refused before the server is asked anything.
  await checkBaselines(workflow.thresholds, dataset.info, options.workflowFile ?? workflow.name);
  const endpoint = await prepareEndpoint(spec, {
    baseUrl: options.baseUrl,
    model: options.model,
    env: options.env,
    questionSet: dataset,
  });
  try {
    return await runPrepared(workflow, { dataset, cases, endpoint, selection }, options);
  } finally {
    await endpoint.close();
  }
}

/**
 * The question set and cases `runBenchmark` asks, checked before anything is sent (the file's
 * rows, the selection, the thresholds' targets). The set is opened and its cases read as a stream,
 * never held whole, unless the run needs them as a list: stability passes (`repeat`) ask them
 * again, and the embedded `oracle` answering a user file's gold holds that gold.
 *
 * @param workflow The validated workflow.
 * @param spec The endpoint run (its embedded predictor decides whether the gold is held).
 * @param options Limit, dataset folder, base URL override, repeats and workflow file.
 * @returns The set (loaded or opened) and its cases (an array, or a case source with no `list`).
 * @throws {QuestionSetError} When the workflow's file is missing or a row breaks its declaration.
 * @throws {DatasetIntegrityError} When the vendored dataset fails its check.
 * @throws {RangeError} When the selection names an unknown id or matches nothing.
 * @throws {WorkflowError} When a threshold names a question or lane no selected case has.
 */
export async function runCases(
  workflow: Workflow,
  spec: EndpointSpec,
  options: Pick<
    RunOptions,
    "limit" | "sample" | "datasetDir" | "baseUrl" | "repeat" | "workflowFile"
  > = {},
): Promise<
  { dataset: Dataset | QuestionSet; cases: readonly Case[] | CaseSource; selection: RunSelection }
> {
  if (options.limit !== undefined && options.sample !== undefined) {
    throw new RangeError("Cannot select cases: give --limit or --sample, not both");
  }
  const select = { limit: options.limit, sample: options.sample, datasetDir: options.datasetDir };
  const file = options.workflowFile ?? workflow.name;
  const oracle = workflow.dataset !== undefined && options.baseUrl === undefined &&
    spec.reference?.predictor === "oracle";
  // A partial selection: a threshold on a lane or question it happens to leave out is not
  // evaluated rather than refused.
  const limit = options.limit ?? workflow.cases.limit;
  const partial = options.sample !== undefined
    ? `--sample ${options.sample.size}`
    : limit !== undefined
    ? (options.limit !== undefined ? `--limit ${limit}` : `cases.limit ${limit}`)
    : null;
  const sampleOf = (population: number): RunSelection["sample"] =>
    options.sample === undefined ? undefined : { ...options.sample, population };
  if (options.repeat !== undefined || oracle) {
    const { dataset, cases } = await loadCases(workflow, select);
    const eligible = selectCases(dataset.cases, { ...workflow.cases, limit: undefined });
    const notEvaluated = checkThresholdTargets(workflow.thresholds, cases, file, {
      partial,
      eligible: {
        lanes: [...new Set(eligible.map((c) => c.workflow))],
        questions: [...new Set(eligible.flatMap((c) => Object.keys(c.questions)))],
      },
    });
    return { dataset, cases, selection: { notEvaluated, sample: sampleOf(eligible.length) } };
  }
  const set = await openCases(workflow, select);
  const notEvaluated = checkThresholdTargets(workflow.thresholds, set, file, {
    partial,
    eligible: set.eligible,
  });
  return {
    dataset: set,
    cases: questionSetSource(set),
    selection: { notEvaluated, sample: sampleOf(set.eligible?.cases ?? set.count) },
  };
}

/** What a run's case selection adds to its record. */
export interface RunSelection {
  /** Thresholds not evaluated (a partial selection asked no case of their lane or question). */
  notEvaluated: ReadonlyMap<number, string>;
  /** The sample drawn, with the number of eligible cases it was drawn from. */
  sample?: { size: number; seed: number; population: number } | undefined;
}

/**
 * Runs prepared cases against a prepared endpoint (the part `runBenchmark` and engine comparisons
 * share).
 *
 * The loop is a source of answered cases feeding sinks through one interface (`RunSink`): it reads
 * the case source once, sends and validates each case (at most `parallel` in flight), scores it
 * into decision records, and hands the case to each sink in turn — the records (`decisions.jsonl`,
 * one append per case in the order cases are answered, never rewritten; `run.json` at the start
 * and the end), the accumulator (the one holder of the run's decisions, from which the summary,
 * thresholds and report model are computed at the end), the index (decisions in batches, the run's
 * row at the start and the end), the report (the trace rendered case by case into a part file,
 * `report.md` and `report.html` at the end), progress events, then `options.sinks`.
 *
 * When `options.signal` aborts, no new request is sent; requests in flight get `graceMs` to finish
 * and are then abandoned (their cases stay unasked). A fatal error (unsupported endpoint, refused
 * key) or an unreachable endpoint (`unreachableAfter` cases in a row failing with network errors)
 * stops the run at once. Either way `run.json` is written with the final status. A sink that fails
 * (a full disk) stops the run with its error, every case answered before kept.
 *
 * With `options.resume`, the recorded run is finished instead: its spec must match the current
 * one (else `ResumeMismatchError` naming what differs), cases with an error-free decision for
 * every question are kept, and only the others are asked. `decisions.jsonl` is read as a stream;
 * when it holds lines that are not kept (errored, torn, duplicate or unselected decisions), the
 * kept ones are copied line by line to a new file first, and the re-asked cases are appended.
 *
 * @param workflow The workflow.
 * @param context Dataset, cases (an array or a `CaseSource`) and endpoint.
 * @param options Overrides, signal, resume, event sink and extra sinks.
 * @returns The run result.
 * @throws {ResumeMismatchError} When resuming a run whose configuration differs.
 * @throws {TypeError} When `repeat` is asked of a case source without a list.
 */
export async function runPrepared(
  workflow: Workflow,
  context: {
    dataset: Pick<Dataset, "info">;
    cases: readonly Case[] | CaseSource;
    endpoint: PreparedEndpoint;
    /** Thresholds not evaluated and the sample drawn. @default none */
    selection?: RunSelection | undefined;
  },
  options: RunOptions = {},
): Promise<RunResult> {
  const { dataset, endpoint } = context;
  const source = caseSourceOf(context.cases);
  if (options.repeat !== undefined && source.list === undefined) {
    throw new TypeError("Cannot repeat the cases: the case source cannot be read again");
  }
  const emit = options.onEvent ?? (() => {});
  let parallel = options.parallel ?? workflow.parallel;
  // Over replicas: each replica's slots (its /props, or --parallel N each), the sum in flight.
  const replicaSet = endpoint.replicas === undefined
    ? undefined
    : await replicaSetFor(endpoint.replicas, parallel, {
      apiKey: endpoint.apiKey,
      signal: options.signal,
      onExclude: (url, live) =>
        emit({
          event: "replica",
          url,
          live,
          message:
            `replica ${url} left out after failing ${REPLICA_EXCLUDE_AFTER} times in a row; ${live} left`,
        }),
    });
  if (replicaSet !== undefined) {
    emit({
      event: "parallel",
      parallel: replicaSet.set.capacity,
      source: "server",
      message: replicaSet.message,
    });
    parallel = replicaSet.set.capacity;
  } else if (parallel === "auto") {
    // The server's slots (llama-server's /props), else 4; the choice is said and recorded.
    const choice = await chooseParallel(endpoint.baseUrl, {
      ...(endpoint.apiKey !== undefined ? { apiKey: endpoint.apiKey } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    emit({ event: "parallel", ...choice });
    parallel = choice.parallel;
  }
  const graceMs = options.graceMs ?? 2000;
  const unreachableAfter = options.unreachableAfter ?? 5;
  const described = await describeRun(workflow, { dataset, cases: source, endpoint }, {
    workflowFile: options.workflowFile ?? null,
    parallel,
  });
  const drawn = context.selection?.sample;
  const spec: RunSpec = drawn === undefined ? described : { ...described, sample: drawn };
  const sessionStarted = new Date();
  const prior = options.resume;
  // The cases kept from the earlier invocation, handed to the sinks as the source reaches them.
  // Only their ids: their decisions are read back from the file as the source reaches them.
  let keptCases = new Set<string>();
  let keptDecisions = 0;
  // The kept decisions' figures, so a resume's progress starts from them.
  let keptCorrect = 0;
  let keptLabelled = 0;
  let keepLines: ReadonlySet<number> | null = null;
  let id: string;
  let dir: string;
  let startedAt: string;
  let sessions: RunSession[] = [];
  if (prior) {
    const scanned = await scanDecisions(
      join(prior.dir, "decisions.jsonl"),
      await source.expected(),
    );
    keptCases = new Set(scanned.answered);
    keptDecisions = scanned.decisions;
    keptCorrect = scanned.correct;
    keptLabelled = scanned.labelled;
    keepLines = scanned.keep;
    // A run with no answered case (e.g. one started with a wrong --base-url) may change endpoint.
    const differences = specDifferences(prior.run.spec, spec, {
      endpointMayChange: keptCases.size === 0,
    });
    if (differences.length) throw new ResumeMismatchError(prior.dir, differences);
    id = prior.run.id;
    dir = prior.dir;
    startedAt = prior.run.started_at;
    sessions = [...(prior.run.sessions ?? [])];
  } else {
    id = runId(workflow.name, sessionStarted);
    dir = options.outDir ?? join(workflow.output.dir, id);
    startedAt = sessionStarted.toISOString();
  }
  // One writer per run directory; a new run never lands on top of another one.
  await using _lock = await lockRunDir(dir, {
    fresh: !prior,
    ...(prior ? { flag: "--resume" } : {}),
  });
  const kept = keptCases.size;
  // Errored, torn, duplicate and unselected lines dropped before appending (a streamed copy, made
  // only when there are any): the file then holds each kept decision once.
  if (keepLines !== null) await compactDecisions(join(dir, "decisions.jsonl"), keepLines);
  // Read before any case of this invocation is appended: only the kept lines are read.
  const keptReader = kept > 0
    ? new KeptDecisions(join(dir, "decisions.jsonl"), keptDecisions)
    : null;
  const run: RunJson = {
    version: RUN_JSON_VERSION,
    tool: TOOL_NAME,
    tool_version: TOOL_VERSION,
    id,
    status: "running",
    started_at: startedAt,
    finished_at: null,
    spec,
    summary: null,
    thresholds: [],
    model_reported: prior?.run.model_reported ?? null,
    fatal: null,
    sessions,
  };
  const collector = new RunAccumulator(workflow);
  let report: RunReport | undefined;
  const reportOf = (final: RunJson): RunReport => report ??= collector.report(final, dataset.info);
  const dbPath = options.dbPath === undefined ? DEFAULT_INDEX_PATH : options.dbPath;
  const index = new IndexSink(dbPath, dir);
  const sinks: RunSink[] = [
    new RunRecorder(dir),
    collector,
    index,
    ...(options.reports !== false ? [new ReportSink(dir, reportOf)] : []),
    new ProgressSink(emit, {
      dir,
      cases: source.count,
      decisions: source.decisions,
      resumed: kept,
      keptCorrect,
      keptLabelled,
    }),
    ...(options.policy !== undefined ? [options.policy] : []),
    ...(options.sinks ?? []),
  ];
  // The sinks are called one after the other, one case at a time; a failure fails every call
  // after it.
  let delivered: Promise<void> = Promise.resolve();
  const feed = (answered: AnsweredCase): Promise<void> => {
    delivered = delivered.then(async () => {
      for (const sink of sinks) await sink.case(answered);
    });
    return delivered;
  };
  const closeSinks = async (): Promise<void> => {
    await keptReader?.close().catch(() => {});
    for (const sink of sinks) await Promise.resolve(sink.close?.()).catch(() => {});
  };

  // Three stops: `stopNew` sends no further request; `abandon` aborts requests in flight;
  // `drained` stops reading the source once no request is to be sent and no kept case is left.
  const stopNew = new AbortController();
  const abandon = new AbortController();
  const drained = new AbortController();
  let keptLeft = kept;
  const checkDrained = (): void => {
    if (stopNew.signal.aborted && keptLeft === 0) drained.abort();
  };
  stopNew.signal.addEventListener("abort", checkDrained, { once: true });
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const onInterrupt = (): void => {
    stopNew.abort();
    graceTimer ??= setTimeout(() => abandon.abort(), graceMs);
  };
  let fatal: string | null = null;
  let fatalKind: RunResult["fatalKind"] = null;
  const stopRun = (message: string, kind: NonNullable<RunResult["fatalKind"]>): void => {
    if (fatal === null) {
      fatal = message;
      fatalKind = kind;
      emit({ event: "fatal", message });
    }
    stopNew.abort();
    abandon.abort();
  };
  let asked = 0;
  // Whether any request of this invocation was answered (a reply, even one with errors).
  let replied = false;
  let requests = 0;
  let networkStreak = 0;
  // Failed requests of transient kinds (429, 529, 5xx, timeout, network) since the last answer.
  let failedStreak = 0;
  let modelReported: string | null = run.model_reported;
  const endpointName = endpoint.spec.name;
  // A server answering 200 with something else (a web page) stops the run, as a 404 does.
  const replies = watchReplies(endpoint.engine.name, spec.endpoint);
  // The same for every case: built once.
  const askOptions: AskOptions = {
    apiKey: endpoint.apiKey,
    timeoutMs: endpoint.spec.timeoutMs,
    retries: endpoint.spec.retries,
    maxReplyBytes: endpoint.spec.maxReplyBytes,
    maxRetryAfterMs: endpoint.spec.maxRetryAfterMs,
    backoffMs: options.backoffMs,
    signal: abandon.signal,
    keyVariable: endpoint.spec.apiKeyEnv,
    cache: askCacheFor(options.cache, endpoint, 0),
  };
  const recordOptions = endpointName ? { endpoint: endpointName } : {};
  try {
    for (const sink of sinks) await sink.start?.(run);
    if (options.signal?.aborted) onInterrupt();
    else options.signal?.addEventListener("abort", onInterrupt, { once: true });
    await pool(source.cases, parallel, async (item, position) => {
      if (keptReader !== null && keptCases.has(item.id)) {
        keptCases.delete(item.id);
        const keptRecords = await keptReader.take(item.id, Object.keys(item.questions).length);
        keptLeft--;
        await feed({ item, index: position, records: keptRecords, asked: null });
        checkDrained();
        return;
      }
      if (stopNew.signal.aborted) return;
      // A case that cannot fit the engine's limits is recorded as error kind "limit", not sent.
      const request = tryBuild(endpoint.engine, {
        state: item.state,
        questions: item.questions,
        model: endpoint.model,
        stateEncoding: endpoint.spec.stateEncoding,
      });
      let outcome;
      try {
        outcome = replicaSet !== undefined
          ? await replicaSet.set.ask(
            {
              state: item.state,
              questions: item.questions,
              model: endpoint.model,
              stateEncoding: endpoint.spec.stateEncoding,
            },
            item.questions,
            askOptions,
          )
          : "error" in request
          ? request
          : await askCase(endpoint.engine, request, item.questions, askOptions);
      } catch (error) {
        // Abandoned after the grace period (or by a fatal stop): nothing is known, stays unasked.
        if (abandon.signal.aborted) {
          requests++;
          return;
        }
        throw error;
      }
      if (outcome.cached !== true) requests += outcome.attempts;
      if (outcome.fatal) {
        // Nothing is known about this case: the run stops and the case stays unasked.
        stopRun(outcome.error?.message ?? "fatal error", "endpoint");
        return;
      }
      if (outcome.reply) replied = true;
      if (outcome.reply?.model) modelReported ??= outcome.reply.model;
      const records = decisionRecords(item, outcome, recordOptions);
      await feed({
        item,
        index: position,
        records,
        asked: {
          attempts: outcome.attempts,
          latencyMs: outcome.latencyMs,
          error: outcome.error?.kind ?? null,
        },
      });
      asked++;
      const notAServer = replies.observe(outcome);
      if (notAServer !== null) stopRun(notAServer, "not_a_server");
      if (outcome.error?.kind === "network") {
        networkStreak++;
        if (networkStreak >= unreachableAfter) {
          // The last error names the URL too: keep only its reason.
          const last = outcome.error.message.replace(/^Cannot reach "[^"]*": /, "");
          stopRun(
            `Cannot reach the endpoint "${spec.endpoint}": ${networkStreak} cases in a row failed with network errors (last: ${last}); start the server or check the base URL`,
            "unreachable",
          );
        }
      } else if (outcome.reply) networkStreak = 0;
      if (outcome.error !== null && isTransientKind(outcome.error.kind)) {
        failedStreak += outcome.attempts;
        const limit = endpoint.spec.stopAfterFailures;
        if (failedStreak >= limit) {
          stopRun(
            `Cannot get answers from "${spec.endpoint}": ${failedStreak} requests in a row failed with transient errors and none was answered (stopAfterFailures ${limit}; last: ${outcome.error.kind}, ${outcome.error.message}); the server is rate limiting, overloaded or not answering — wait, then resume the run`,
            "unanswered",
          );
        }
      } else if (outcome.attempts > 0) failedStreak = 0;
    }, drained.signal);
  } catch (error) {
    // A full disk: the reason and the pasteable command that finishes the run, index flag included,
    // also in run.json, which ends `interrupted` rather than `running`.
    const failure = writeFailure(error, dir, { db: dbPath ?? "" });
    if (failure !== error && failure instanceof Error) {
      const finished = new Date();
      const final: RunJson = {
        ...run,
        status: "interrupted",
        finished_at: finished.toISOString(),
        summary: collector.summary(),
        thresholds: collector.thresholds(),
        model_reported: modelReported,
        fatal: failure.message,
        sessions: [...sessions, {
          started_at: sessionStarted.toISOString(),
          finished_at: finished.toISOString(),
          status: "interrupted",
          kept,
          asked,
          requests,
          duration_ms: finished.getTime() - sessionStarted.getTime(),
        }],
      };
      index.finish(final);
      await closeSinks();
      await recordInterrupted(dir, final);
    } else await closeSinks();
    throw failure;
  } finally {
    clearTimeout(graceTimer);
    options.signal?.removeEventListener("abort", onInterrupt);
  }
  // A new run stopped before any answer by a refused key or an unreachable endpoint leaves
  // nothing behind: no run directory, no index row.
  const stoppedAs = fatalKind as RunResult["fatalKind"];
  if (
    !prior && !replied && !options.keepUnanswered &&
    (stoppedAs === "endpoint" || stoppedAs === "unreachable")
  ) {
    return await discardRun({
      id,
      dir,
      run,
      fatal,
      fatalKind: stoppedAs,
      collector,
      dataset,
      index,
      closeSinks,
    });
  }
  try {
    // Stability passes hold the cases and their official decisions (read back from the file).
    const stability = options.repeat !== undefined && fatal === null && !options.signal?.aborted
      ? await runRepeats({
        cases: source.list ?? [],
        endpoint,
        dir,
        official: await readDecisions(join(dir, "decisions.jsonl")),
      }, {
        repeat: options.repeat,
        parallel,
        parallelSweep: options.parallelSweep,
        signal: options.signal,
        backoffMs: options.backoffMs,
        cache: options.cache,
        replicas: replicaSet?.set,
        onPass: (pass) => emit({ event: "repeat", ...pass }),
      })
      : undefined;
    const complete = collector.cases === source.count;
    const summary = collector.summary();
    const thresholds = await baselineThresholds(
      markNotEvaluated(collector.thresholds(), context.selection?.notEvaluated ?? new Map()),
      workflow,
      dir,
    );
    const interrupted = options.signal?.aborted === true && fatal === null;
    const status: RunSession["status"] = interrupted
      ? "interrupted"
      : complete && summary.errors === 0
      ? "completed"
      : "incomplete";
    const finished = new Date();
    const final: RunJson = {
      ...run,
      status,
      finished_at: finished.toISOString(),
      summary,
      thresholds,
      model_reported: modelReported,
      fatal,
      ...(stability !== undefined ? { stability } : {}),
      ...(replicaSet !== undefined ? { replicas: replicaSet.set.stats() } : {}),
      ...(options.policy !== undefined ? { policy: options.policy.section() } : {}),
      sessions: [...sessions, {
        started_at: sessionStarted.toISOString(),
        finished_at: finished.toISOString(),
        status,
        kept,
        asked,
        requests,
        duration_ms: finished.getTime() - sessionStarted.getTime(),
      }],
    };
    for (const sink of sinks) await sink.finish?.(final);
    return {
      id,
      dir,
      status,
      summary,
      thresholds,
      run: final,
      fatal,
      fatalKind,
      dataset,
      report: reportOf(final),
      // The index is secondary to the run directory: a failure to write it is reported, and the
      // run's status and exit status do not change.
      indexed: dbPath !== null && index.error === null ? dbPath : null,
      indexError: index.error,
      discarded: false,
    };
  } finally {
    await closeSinks();
  }
}

/**
 * Writes the `run.json` of a run stopped by a full disk. The trace's part file goes first (a
 * resume starts it again) to make room; when even then the file cannot be replaced whole, it is
 * rewritten in place. Nothing more can be done when that fails too: the error already says how to
 * finish the run.
 */
async function recordInterrupted(dir: string, final: RunJson): Promise<void> {
  await Deno.remove(join(dir, TRACE_PART_FILE)).catch(() => {});
  const text = JSON.stringify(final, null, 2) + "\n";
  const path = join(dir, "run.json");
  try {
    await writeAtomic(path, text);
  } catch {
    await Deno.writeTextFile(path, text).catch(() => {});
  }
}

/** Removes a run that stopped before any answer (see `RunResult.discarded`). */
async function discardRun(parts: {
  id: string;
  dir: string;
  run: RunJson;
  fatal: string | null;
  fatalKind: RunResult["fatalKind"];
  collector: RunAccumulator;
  dataset: Pick<Dataset, "info">;
  index: IndexSink;
  closeSinks: () => Promise<void>;
}): Promise<RunResult> {
  const { run, collector } = parts;
  await parts.closeSinks();
  parts.index.discard();
  await Deno.remove(parts.dir, { recursive: true }).catch(() => {});
  const final: RunJson = {
    ...run,
    status: "incomplete",
    finished_at: new Date().toISOString(),
    summary: collector.summary(),
    fatal: parts.fatal,
  };
  return {
    id: parts.id,
    dir: parts.dir,
    status: "incomplete",
    summary: final.summary as Summary,
    thresholds: [],
    run: final,
    fatal: parts.fatal,
    fatalKind: parts.fatalKind,
    dataset: parts.dataset,
    report: collector.report(final, parts.dataset.info),
    indexed: null,
    indexError: null,
    discarded: true,
  };
}

/**
 * The exact requests a run would send, without sending anything (`--dry-run`). With `resume`,
 * only the requests the resumed run would send: the cases without a recorded answer.
 *
 * @param workflow The workflow.
 * @param options Overrides, and the run being resumed.
 * @returns One `{url, body}` per case to ask, in order.
 */
export async function dryRunRequests(
  workflow: Workflow,
  options: Pick<RunOptions, "baseUrl" | "model" | "limit" | "sample" | "datasetDir" | "resume"> =
    {},
): Promise<{ case: string; url: string; body: string }[]> {
  const spec = workflow.endpoint ?? workflow.endpoints?.[0];
  if (!spec) throw new TypeError("Cannot run: the workflow has no endpoint");
  let { cases } = await loadCases(workflow, {
    limit: options.limit,
    sample: options.sample,
    datasetDir: options.datasetDir,
  });
  if (options.resume) {
    const expected = new Map(cases.map((c) => [c.id, Object.keys(c.questions)]));
    const answered = answeredCases(options.resume.records, expected);
    cases = cases.filter((c) => !answered.has(c.id));
  }
  const baseUrl = options.baseUrl ?? spec.baseUrl ?? "http://127.0.0.1:0";
  const model = options.model ?? spec.model;
  const engine = createEngine({ engine: spec.engine, baseUrl, model, headers: spec.headers });
  return cases.map((c) => {
    const req = engine.build({
      state: c.state,
      questions: c.questions,
      model,
      stateEncoding: spec.stateEncoding,
    });
    return { case: c.id, url: req.url, body: req.body };
  });
}
