/**
 * Engines side by side: a workflow that lists several endpoints runs the same cases on each (one
 * after another, each in its own run directory with its own records), then compares them —
 * metrics with intervals per engine, the paired accuracy difference against the first engine,
 * how often the engines' predicted answers agree (overall and per question), latency, tokens and
 * cost per engine, and the calibration caveat when calibrated and uncalibrated engines meet.
 *
 * @module
 */
import { join } from "node:path";
import type { Case } from "../dataset/mod.ts";
import { createEngine, tryBuild } from "../client/mod.ts";
import {
  type Interval,
  type McNemarCounts,
  pairedComparison,
  type Summary,
} from "../metrics/mod.ts";
import {
  type DecisionRecord,
  inCaseOrder,
  readDecisions,
  type RunJson,
  writeAtomic,
} from "../record/mod.ts";
import { type Agreement, answerAgreement } from "./agreement.ts";
import { loadCases } from "./cases.ts";
import {
  prepareEndpoint,
  type RunEvent,
  type RunOptions,
  runPrepared,
  type RunResult,
} from "./run.ts";
import type { EndpointSpec, Workflow } from "./schemas.ts";

/** Options of {@linkcode compareEngines}: the run options, applied to every endpoint. */
export interface CompareEnginesOptions extends
  Pick<
    RunOptions,
    | "model"
    | "parallel"
    | "limit"
    | "workflowFile"
    | "env"
    | "datasetDir"
    | "backoffMs"
    | "dbPath"
    | "cache"
  > {
  /** Sends every endpoint to this server instead (`--base-url`), each on its engine's route. @default undefined */
  baseUrl?: string | undefined;
  /** Directory holding one run directory per endpoint and `comparison.json`. @default `<output.dir>/<id>` */
  outDir?: string | undefined;
  /** Stops the comparison (no further endpoint starts; the current run ends `interrupted`). @default undefined */
  signal?: AbortSignal | undefined;
  /** Receives each run's progress events with its endpoint name. @default undefined */
  onEvent?: (endpoint: string, event: RunEvent) => void | undefined;
}

/** One engine's result in a comparison. */
export interface EngineResult {
  /** Endpoint name (unique in the comparison). */
  name: string;
  /** Engine (wire format). */
  engine: string;
  /** Model sent. */
  model: string;
  /** Model the server said answered, or null. */
  modelReported: string | null;
  /** Whether the engine's probabilities are calibrated. */
  calibrated: boolean;
  /** Run status. */
  status: RunJson["status"];
  /** Why the run stopped early, or null. */
  fatal: string | null;
  /** Run directory. */
  dir: string;
  /** Metrics with intervals, latency, tokens. */
  summary: Summary;
  /** Total cost the provider reported (one per case), or null when none did. */
  cost: number | null;
  /** Paired accuracy difference (this − first engine) on shared decisions; null for the first. */
  versusFirst: {
    /** Accuracy difference, this engine minus the first. */
    difference: number | null;
    /** Paired bootstrap 95% interval of the difference. */
    interval: Interval | null;
    /** Exact McNemar p-value. */
    pValue: number;
    /** McNemar counts (A = the first engine, B = this one). */
    mcnemar: McNemarCounts;
  } | null;
}

/** A comparison of engines on the same cases. */
export interface EngineComparison {
  /** Workflow name. */
  workflow: string;
  /** Directory holding the runs and `comparison.json`. */
  dir: string;
  /** Cases asked of each engine. */
  cases: number;
  /** Per engine, in the workflow's order (only engines that ran). */
  engines: EngineResult[];
  /** Agreement of predicted answers; null when fewer than two engines ran. */
  agreement: Agreement | null;
  /** The calibration caveat, or null when every engine is calibrated. */
  caveat: string | null;
  /** True when the comparison was stopped before every endpoint ran to its end. */
  interrupted: boolean;
  /** The full runs (records included), in the same order as `engines`. */
  runs: RunResult[];
}

/**
 * Unique, path-safe names for a workflow's endpoints: the endpoint's `name`, else
 * `<index>-<engine>`; repeats get `-<index>` appended.
 *
 * @param endpoints The endpoints.
 * @returns One name per endpoint.
 */
export function endpointNames(endpoints: readonly EndpointSpec[]): string[] {
  const seen = new Set<string>();
  return endpoints.map((e, i) => {
    let name = (e.name ?? `${i + 1}-${e.engine}`).replace(/[^A-Za-z0-9._-]+/g, "-");
    if (seen.has(name)) name = `${name}-${i + 1}`;
    seen.add(name);
    return name;
  });
}

function endpointsOf(workflow: Workflow): EndpointSpec[] {
  const endpoints = workflow.endpoints ?? (workflow.endpoint ? [workflow.endpoint] : []);
  if (endpoints.length === 0) {
    throw new TypeError("Cannot compare engines: the workflow has no endpoint");
  }
  return endpoints;
}

function comparisonId(name: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${name}-${crypto.randomUUID().slice(0, 4)}`;
}

/** The calibration caveat for a set of engines, or null when all are calibrated. */
function caveatFor(engines: readonly { name: string; calibrated: boolean }[]): string | null {
  const raw = engines.filter((e) => !e.calibrated).map((e) => e.name);
  if (raw.length === 0) return null;
  const mixed = raw.length < engines.length;
  return `${raw.join(", ")} ${raw.length === 1 ? "is" : "are"} uncalibrated (a raw softmax, ` +
    `pcdServer): ${
      mixed
        ? "a 0.9 from it and a 0.9 from a calibrated engine are different measurements, so "
        : ""
    }confidence thresholds, ECE and mean confidence do not transfer between engines; accuracy and ` +
    `agreement use only the winning option and stay comparable, while KL and Brier score the whole ` +
    `distribution, so they also charge an uncalibrated engine for its over- or under-confidence`;
}

function totalCost(records: readonly DecisionRecord[]): number | null {
  const byCase = new Map<string, number>();
  for (const r of records) {
    if (r.cost !== undefined && !byCase.has(r.case)) byCase.set(r.case, r.cost);
  }
  if (byCase.size === 0) return null;
  let sum = 0;
  for (const c of byCase.values()) sum += c;
  return sum;
}

/**
 * Runs the same cases on every endpoint of a workflow, one endpoint after another, and compares
 * the engines. Each endpoint's run is a normal run (its own directory with `run.json` and
 * `decisions.jsonl`, each decision tagged with the endpoint name); `comparison.json` is written
 * beside them.
 *
 * @param workflow A validated workflow (with `endpoints`, or one `endpoint`).
 * @param options Overrides, output directory, signal and event sink.
 * @returns The comparison, with every run.
 * @throws {TypeError} When the workflow has no endpoint.
 * @throws {DatasetIntegrityError} Before any request when the vendored data fails its check.
 * @example
 * ```ts ignore
 * import { compareEngines, engineComparisonText, loadWorkflow } from "./mod.ts";
 * const workflow = await loadWorkflow("workflows/compare-engines.ts");
 * const comparison = await compareEngines(workflow, { limit: 40 });
 * console.log(engineComparisonText(comparison));
 * ```
 */
export async function compareEngines(
  workflow: Workflow,
  options: CompareEnginesOptions = {},
): Promise<EngineComparison> {
  const endpoints = endpointsOf(workflow);
  const names = endpointNames(endpoints);
  const loaded = await loadCases(workflow, {
    limit: options.limit,
    datasetDir: options.datasetDir,
  });
  const dataset = loaded.dataset;
  const cases: readonly Case[] = loaded.cases;
  const dir = options.outDir ??
    join(workflow.output.dir, comparisonId(workflow.name, new Date()));
  const runs: RunResult[] = [];
  const decisions: (readonly DecisionRecord[])[] = [];
  const engines: EngineResult[] = [];
  let interrupted = false;
  for (let i = 0; i < endpoints.length; i++) {
    if (options.signal?.aborted) {
      interrupted = true;
      break;
    }
    const name = names[i] as string;
    const spec: EndpointSpec = { ...(endpoints[i] as EndpointSpec), name };
    const endpoint = await prepareEndpoint(spec, {
      baseUrl: options.baseUrl,
      model: options.model,
      env: options.env,
      questionSet: dataset,
    });
    let result: RunResult;
    try {
      result = await runPrepared(workflow, { dataset, cases, endpoint }, {
        outDir: join(dir, name),
        workflowFile: options.workflowFile ?? null,
        parallel: options.parallel,
        signal: options.signal,
        backoffMs: options.backoffMs,
        dbPath: options.dbPath,
        cache: options.cache,
        keepUnanswered: true,
        onEvent: (event) => options.onEvent?.(name, event),
      });
    } finally {
      await endpoint.close();
    }
    if (result.status === "interrupted") interrupted = true;
    runs.push(result);
    // The paired comparison and the agreement pair each case's decisions across engines: they
    // read each run's decisions back from its records file.
    const records = inCaseOrder(await readDecisions(join(result.dir, "decisions.jsonl")));
    decisions.push(records);
    const first = decisions[0] as readonly DecisionRecord[];
    const paired = i === 0 ? null : pairedComparison(first, records, {
      seed: workflow.seed,
    });
    engines.push({
      name,
      engine: endpoint.engine.name,
      model: endpoint.model,
      modelReported: result.run.model_reported,
      calibrated: endpoint.engine.calibrated,
      status: result.status,
      fatal: result.fatal,
      dir: result.dir,
      summary: result.summary,
      cost: totalCost(records),
      versusFirst: paired && {
        difference: paired.difference,
        interval: paired.interval,
        pValue: paired.pValue,
        mcnemar: paired.mcnemar,
      },
    });
    if (interrupted) break;
  }
  const agreement = runs.length >= 2
    ? answerAgreement(
      decisions.map((records, i) => ({ name: engines[i]?.name ?? "", records })),
      { seed: workflow.seed },
    )
    : null;
  const comparison: EngineComparison = {
    workflow: workflow.name,
    dir,
    cases: cases.length,
    engines,
    agreement,
    caveat: caveatFor(engines),
    interrupted: interrupted || engines.length < endpoints.length,
    runs,
  };
  const { runs: _runs, ...record } = comparison;
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomic(join(dir, "comparison.json"), JSON.stringify(record, null, 2) + "\n");
  return comparison;
}

/** One request a dry run would send, or why it would not be sent. */
export interface DryRunEngineRequest {
  /** Endpoint name. */
  endpoint: string;
  /** Case id. */
  case: string;
  /** URL, or null when the case cannot fit the engine's limits. */
  url: string | null;
  /** The exact body, or null when the case cannot fit. */
  body: string | null;
  /** The limit that refuses the case, or null. */
  error: string | null;
}

/**
 * The exact requests each endpoint's engine would send, case by case, without sending anything
 * (`--dry-run` for a workflow with several endpoints). A case an engine cannot fit is listed
 * with the limit that refuses it.
 *
 * @param workflow The workflow.
 * @param options Base URL, model and case limit overrides, dataset directory.
 * @returns The requests, endpoint by endpoint, cases in order.
 * @throws {TypeError} When the workflow has no endpoint or a URL is invalid.
 */
export async function dryRunEngines(
  workflow: Workflow,
  options: Pick<CompareEnginesOptions, "baseUrl" | "model" | "limit" | "datasetDir"> = {},
): Promise<DryRunEngineRequest[]> {
  const endpoints = endpointsOf(workflow);
  const names = endpointNames(endpoints);
  const { cases } = await loadCases(workflow, {
    limit: options.limit,
    datasetDir: options.datasetDir,
  });
  const out: DryRunEngineRequest[] = [];
  endpoints.forEach((spec, i) => {
    const baseUrl = options.baseUrl ?? spec.baseUrl ?? "http://127.0.0.1:0";
    const model = options.model ?? spec.model;
    const engine = createEngine({ engine: spec.engine, baseUrl, model, headers: spec.headers });
    for (const c of cases) {
      const built = tryBuild(engine, {
        state: c.state,
        questions: c.questions,
        model,
        stateEncoding: spec.stateEncoding,
      });
      const endpoint = names[i] as string;
      out.push(
        "error" in built
          ? { endpoint, case: c.id, url: null, body: null, error: built.error?.message ?? "" }
          : { endpoint, case: c.id, url: built.url, body: built.body, error: null },
      );
    }
  });
  return out;
}
