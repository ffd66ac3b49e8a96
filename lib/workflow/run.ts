/**
 * The run loop: dataset → request → transport → answer → score → record. The live monitor and
 * the engine comparison reuse its steps (`prepareEndpoint`, `askCase`, `decisionRecords`).
 *
 * @module
 */
import { join } from "node:path";
import { type Dataset, loadDataset } from "../dataset/mod.ts";
import type { Case } from "../dataset/schemas.ts";
import { askCase } from "../client/ask.ts";
import type { Engine } from "../client/engine.ts";
import { createEngine } from "../client/engines.ts";
import { pool } from "../client/pool.ts";
import { endpointIdentity } from "../client/url.ts";
import { decisionRecords } from "../record/decisions.ts";
import { fingerprint, sha256Hex } from "../record/fingerprint.ts";
import { RunRecorder } from "../record/recorder.ts";
import type { DecisionRecord, RunJson, RunSpec, ThresholdResult } from "../record/schemas.ts";
import { summarize, type Summary } from "../metrics/mod.ts";
import { TOOL_NAME, TOOL_VERSION } from "../version.ts";
import { selectCases } from "./cases.ts";
import type { EndpointSpec, Workflow } from "./schemas.ts";
import { evaluateThresholds } from "./thresholds.ts";

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
  }
  | {
    event: "case";
    case: string;
    workflow: string;
    done: number;
    total: number;
    correct: number;
    questions: number;
    error: string | null;
    attempts: number;
    latency_ms: number | null;
  }
  | { event: "fatal"; message: string }
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
  baseUrl?: string;
  /** Overrides the model (`--model`). @default undefined */
  model?: string;
  /** Overrides `parallel` (`--parallel`). @default undefined */
  parallel?: number;
  /** Overrides the case limit (`--limit`). @default undefined */
  limit?: number;
  /** Run directory (`--out`); default `<output.dir>/<run-id>`. @default undefined */
  outDir?: string;
  /** Path of the workflow file, recorded in the run. @default null */
  workflowFile?: string | null;
  /** Stops sending new requests when aborted (Ctrl+C). @default undefined */
  signal?: AbortSignal;
  /** Receives progress events. @default undefined */
  onEvent?: (event: RunEvent) => void;
  /** Reads environment variables (for the API key). @default Deno.env.get */
  env?: (name: string) => string | undefined;
  /** Dataset directory (tests). @default the vendored one */
  datasetDir?: string;
  /** Backoff base for retries in ms. @default 250 */
  backoffMs?: number;
}

/** The result of a run. */
export interface RunResult {
  /** Run id. */
  id: string;
  /** Run directory. */
  dir: string;
  /** Final status. */
  status: RunJson["status"];
  /** Every decision, in dataset order. */
  records: DecisionRecord[];
  /** The summary. */
  summary: Summary;
  /** Threshold results. */
  thresholds: ThresholdResult[];
  /** The run record as written. */
  run: RunJson;
  /** The message that ended the run early, or null. */
  fatal: string | null;
  /** The dataset the run used. */
  dataset: Dataset;
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
  /** Stops the embedded server, when one was started. */
  close(): Promise<void>;
}

/** Options for `prepareEndpoint`. */
export interface PrepareEndpointOptions {
  /** Overrides the base URL. @default undefined */
  baseUrl?: string;
  /** Overrides the model. @default undefined */
  model?: string;
  /** Reads environment variables. @default Deno.env.get */
  env?: (name: string) => string | undefined;
}

/**
 * Resolves an endpoint: starts the embedded reference server when the spec asks for it (and no
 * `--base-url` overrides it), reads the key from its environment variable, creates the engine.
 *
 * @param spec The endpoint spec.
 * @param options Overrides.
 * @returns The prepared endpoint; call `close()` when done.
 * @throws {Error} When a required key variable is unset or the URL is invalid.
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
      throw new Error(
        `Cannot start the run: environment variable "${spec.apiKeyEnv}" is not set; export it with the API key`,
      );
    }
  }
  let baseUrl = options.baseUrl ?? spec.baseUrl;
  let close = (): Promise<void> => Promise.resolve();
  if (options.baseUrl === undefined && spec.reference) {
    const { startReferenceServer } = await import("../server/mod.ts");
    const server = await startReferenceServer({
      predictor: spec.reference.predictor,
      ...(spec.reference.faults !== undefined ? { faults: spec.reference.faults } : {}),
      ...(spec.reference.seed !== undefined ? { seed: spec.reference.seed } : {}),
      ...(spec.reference.latencyMs !== undefined ? { latencyMs: spec.reference.latencyMs } : {}),
      ...(apiKey !== undefined ? { apiKey } : {}),
    });
    baseUrl = server.url;
    close = () => server.close();
  }
  if (baseUrl === undefined) throw new TypeError("Cannot start the run: the endpoint has no URL");
  const model = options.model ?? spec.model;
  try {
    const engine = createEngine({ engine: spec.engine, baseUrl, model, headers: spec.headers });
    return { spec, engine, baseUrl, model, apiKey, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function runId(name: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${name}-${crypto.randomUUID().slice(0, 4)}`;
}

/** Options for `describeRun`. */
export interface DescribeRunOptions {
  /** Workflow file path. @default null */
  workflowFile?: string | null;
  /** Requests in flight. @default the workflow's */
  parallel?: number;
}

/**
 * The spec of a run: what it asks, of whom, and its fingerprint.
 *
 * @param workflow The workflow.
 * @param context Dataset, selected cases and prepared endpoint.
 * @param options File and parallelism.
 * @returns The run spec.
 */
export async function describeRun(
  workflow: Workflow,
  context: { dataset: Dataset; cases: readonly Case[]; endpoint: PreparedEndpoint },
  options: DescribeRunOptions = {},
): Promise<RunSpec> {
  const { dataset, cases, endpoint } = context;
  const request = endpoint.engine.build({
    state: null,
    questions: {},
    model: endpoint.model,
    stateEncoding: endpoint.spec.stateEncoding,
  });
  const identity = endpointIdentity(request.url);
  const questionsSha256 = await sha256Hex(JSON.stringify(cases.map((c) => c.questions)));
  return {
    workflow: workflow.name,
    workflow_file: options.workflowFile ?? null,
    endpoint: identity,
    endpoint_name: endpoint.spec.name ?? null,
    engine: endpoint.engine.name,
    model: endpoint.model,
    state_encoding: endpoint.spec.stateEncoding,
    reference: endpoint.spec.reference && request.url.startsWith("http://127.0.0.1")
      ? { ...endpoint.spec.reference }
      : null,
    dataset: dataset.info.dataset,
    revision: dataset.info.revision,
    split: dataset.info.split,
    license: dataset.info.license,
    cases: cases.length,
    case_ids_sha256: await sha256Hex(cases.map((c) => c.id).join("\n")),
    questions_sha256: questionsSha256,
    parallel: options.parallel ?? workflow.parallel,
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
    }),
    seed: workflow.seed,
  };
}

/** The metric values thresholds are checked against. */
function metricValues(summary: Summary): Record<string, number | null> {
  return { accuracy: summary.accuracy, kl: summary.kl, brier: summary.brier, ece: summary.ece };
}

/**
 * Runs a workflow's (first) endpoint over the selected cases, appending decisions as each case is
 * answered and writing `run.json` at the start and the end.
 *
 * @param workflow The validated workflow.
 * @param options Overrides, signal and event sink.
 * @returns The run result.
 * @throws {DatasetIntegrityError} Before any request when the vendored data fails its check.
 */
export async function runBenchmark(
  workflow: Workflow,
  options: RunOptions = {},
): Promise<RunResult> {
  const spec = workflow.endpoint ?? workflow.endpoints?.[0];
  if (!spec) throw new TypeError("Cannot run: the workflow has no endpoint");
  const dataset = await loadDataset(options.datasetDir ? { dir: options.datasetDir } : {});
  const cases = selectCases(dataset.cases, workflow.cases, options.limit);
  const endpoint = await prepareEndpoint(spec, {
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
  });
  try {
    return await runPrepared(workflow, { dataset, cases, endpoint }, options);
  } finally {
    await endpoint.close();
  }
}

/**
 * Runs prepared cases against a prepared endpoint (the part `runBenchmark` and engine comparisons
 * share).
 *
 * @param workflow The workflow.
 * @param context Dataset, cases and endpoint.
 * @param options Overrides, signal and event sink.
 * @returns The run result.
 */
export async function runPrepared(
  workflow: Workflow,
  context: { dataset: Dataset; cases: readonly Case[]; endpoint: PreparedEndpoint },
  options: RunOptions = {},
): Promise<RunResult> {
  const { dataset, cases, endpoint } = context;
  const emit = options.onEvent ?? (() => {});
  const parallel = options.parallel ?? workflow.parallel;
  const spec = await describeRun(workflow, context, {
    workflowFile: options.workflowFile ?? null,
    parallel,
  });
  const started = new Date();
  const id = runId(workflow.name, started);
  const dir = options.outDir ?? join(workflow.output.dir, id);
  const recorder = new RunRecorder(dir);
  await recorder.open();
  const run: RunJson = {
    version: 1,
    tool: TOOL_NAME,
    tool_version: TOOL_VERSION,
    id,
    status: "running",
    started_at: started.toISOString(),
    finished_at: null,
    spec,
    summary: null,
    thresholds: [],
    model_reported: null,
    fatal: null,
  };
  await recorder.writeRun(run);
  emit({
    event: "start",
    run_id: id,
    dir,
    workflow: workflow.name,
    endpoint: spec.endpoint,
    model: spec.model,
    cases: cases.length,
    decisions: cases.reduce((n, c) => n + Object.keys(c.questions).length, 0),
    fingerprint: spec.fingerprint,
    resumed: 0,
  });

  const byCase = new Map<string, DecisionRecord[]>();
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let fatal: string | null = null;
  let done = 0;
  let modelReported: string | null = null;
  const endpointName = endpoint.spec.name;
  try {
    await pool(cases, parallel, async (item) => {
      const request = endpoint.engine.build({
        state: item.state,
        questions: item.questions,
        model: endpoint.model,
        stateEncoding: endpoint.spec.stateEncoding,
      });
      const outcome = await askCase(endpoint.engine, request, item.questions, {
        ...(endpoint.apiKey !== undefined ? { apiKey: endpoint.apiKey } : {}),
        timeoutMs: endpoint.spec.timeoutMs,
        retries: endpoint.spec.retries,
        ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
        signal,
      });
      if (outcome.fatal) {
        // Nothing is known about this case: the run stops and the case stays unasked.
        if (fatal === null) {
          fatal = outcome.error?.message ?? "fatal error";
          emit({ event: "fatal", message: fatal });
        }
        stop.abort();
        return;
      }
      if (outcome.reply?.model) modelReported ??= outcome.reply.model;
      const records = decisionRecords(
        item,
        outcome,
        endpointName ? { endpoint: endpointName } : {},
      );
      await recorder.append(records);
      byCase.set(item.id, records);
      done++;
      emit({
        event: "case",
        case: item.id,
        workflow: item.workflow,
        done,
        total: cases.length,
        correct: records.filter((r) => r.correct).length,
        questions: records.length,
        error: outcome.error?.kind ?? null,
        attempts: outcome.attempts,
        latency_ms: outcome.latencyMs,
      });
    }, signal);
  } catch (error) {
    if (!signal.aborted) {
      recorder.close();
      throw error;
    }
  }
  const records = cases.flatMap((c) => byCase.get(c.id) ?? []);
  const complete = byCase.size === cases.length;
  const summary = summarize(records, { seed: workflow.seed });
  const thresholds = evaluateThresholds(workflow.thresholds, metricValues(summary));
  const interrupted = options.signal?.aborted === true && fatal === null;
  const status: RunJson["status"] = interrupted
    ? "interrupted"
    : complete && summary.errors === 0
    ? "completed"
    : "incomplete";
  await recorder.rewriteDecisions(records);
  const final: RunJson = {
    ...run,
    status,
    finished_at: new Date().toISOString(),
    summary: summary as unknown as Record<string, unknown>,
    thresholds,
    model_reported: modelReported,
    fatal,
  };
  await recorder.writeRun(final);
  emit({ event: "summary", run_id: id, status, dir, summary, thresholds });
  return { id, dir, status, records, summary, thresholds, run: final, fatal, dataset };
}

/**
 * The exact requests a run would send, without sending anything (`--dry-run`).
 *
 * @param workflow The workflow.
 * @param options Overrides.
 * @returns One `{url, body}` per case, in order.
 */
export async function dryRunRequests(
  workflow: Workflow,
  options: Pick<RunOptions, "baseUrl" | "model" | "limit" | "datasetDir"> = {},
): Promise<{ case: string; url: string; body: string }[]> {
  const spec = workflow.endpoint ?? workflow.endpoints?.[0];
  if (!spec) throw new TypeError("Cannot run: the workflow has no endpoint");
  const dataset = await loadDataset(options.datasetDir ? { dir: options.datasetDir } : {});
  const cases = selectCases(dataset.cases, workflow.cases, options.limit);
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
