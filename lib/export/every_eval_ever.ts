/**
 * Every Eval Ever (the EvalEval coalition's shared schema, `eval.schema.json` 0.3.0): one
 * aggregate record with every metric of the run (score, 95% bootstrap interval, direction,
 * range) and its instance-level `<uuid>_samples.jsonl`, one line per decision, laid out as the
 * Every Eval Ever repository keeps them (`data/typed-decisions/<developer>/<model>/<uuid>.json`).
 *
 * Each instance line belongs to the `accuracy` result (its score is 1 when the predicted answer
 * is the gold label); the decision's KL, Brier, confidence and both distributions are in its
 * `metadata`. The input is the case's state and the question as sent, read from the vendored
 * dataset at the revision the run used — or, for a run on the user's own question set, from the
 * recorded file while its sha256 matches (the collection is then the workflow's name and the
 * source a private data set, `source_type: "other"`).
 *
 * @module
 */
import { type Case, loadDataset, optionsOf } from "../dataset/mod.ts";
import { type DecisionRecord, type RunJson, sha256Hex } from "../record/mod.ts";
import { countOf, intervalOf, metricOf, SUMMARY_METRICS } from "./summary_values.ts";
import { type ExportInput, type ExportOptions, type ExportResult, textFile } from "./types.ts";
import { assertValid } from "./validate.ts";
import { userSetDecisions, userSetOf, userSetSourceData } from "./_user_set.ts";
import { eeeMetricId, eeeMetricParameters } from "./_eee_metrics.ts";
import { eeeProvenance } from "./_eee_provenance.ts";
import { SubtaskCollector, type SubtaskRow } from "./_eee_subtasks.ts";
import { pythonJsonDumps } from "./_python_json.ts";

/** The schema version the export follows. */
export const EEE_SCHEMA_VERSION = "0.3.0";
/** The collection (benchmark) folder and `source_data.dataset_name`. */
export const EEE_COLLECTION = "typed-decisions";
/** Bootstrap resamples behind every interval in a run summary. */
const BOOTSTRAP_RESAMPLES = 1000;

/** A path segment safe on every file system: letters, digits, `.`, `_`, `-`; never `.`/`..`. */
function segment(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9._-]/g, "_");
  return safe === "" || /^\.+$/.test(safe) ? "_" : safe;
}

/**
 * The model id a run is exported under, in Hugging Face form (`developer/model`).
 *
 * @param run The run record.
 * @param override `--model-id`, when given.
 * @returns The id.
 * @throws {RangeError} When the override is not `developer/model`.
 */
export function exportModelId(run: RunJson, override?: string): string {
  if (override !== undefined) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(override)) {
      throw new RangeError(
        `Cannot export run "${run.id}": --model-id "${override}" is not in the form developer/model`,
      );
    }
    return override;
  }
  const model = run.model_reported ?? run.spec.model;
  if (/^[^/\s]+\/[^\s]+$/.test(model)) return model;
  return `${run.spec.reference ? "decibench" : "unknown"}/${model.replaceAll("/", "_")}`;
}

/** A UUID v4 derived from the run (so exporting the same run again names the same files). */
async function runUuid(run: RunJson): Promise<string> {
  const hex = await sha256Hex(`every-eval-ever\n${run.id}\n${run.spec.fingerprint}`);
  const variant = "89ab"[parseInt(hex[16] as string, 16) % 4] as string;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${
    hex.slice(17, 20)
  }-${hex.slice(20, 32)}`;
}

function epochSeconds(iso: string): string {
  return String(Date.parse(iso) / 1000);
}

function strings(entries: Record<string, string | number | boolean | null | undefined>) {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(entries)) {
    if (v !== null && v !== undefined) out[k] = String(v);
  }
  return out;
}

function bound(value: number): number | "Infinity" | "-Infinity" {
  return value === Infinity ? "Infinity" : value === -Infinity ? "-Infinity" : value;
}

/**
 * Every Eval Ever's `sample_hash`: sha256 of `json.dumps({"raw": raw, "reference": reference},
 * sort_keys=True, separators=(",", ":"))` (ASCII-escaped, as Python writes it by default).
 */
function sampleHash(raw: string, reference: string[]): Promise<string> {
  return sha256Hex(pythonJsonDumps({ raw, reference }));
}

async function casesOf(run: RunJson, options: ExportOptions): Promise<Map<string, Case>> {
  const split = run.spec.split === "train" ? "train" : "test";
  const dataset = await loadDataset({
    split,
    ...(options.datasetDir !== undefined ? { dir: options.datasetDir } : {}),
  });
  if (dataset.info.dataset !== run.spec.dataset || dataset.info.revision !== run.spec.revision) {
    throw new RangeError(
      `Cannot export run "${run.id}" as every-eval-ever: it used ${run.spec.dataset}@${
        run.spec.revision.slice(0, 12)
      }, but the vendored dataset is ${dataset.info.dataset}@${
        dataset.info.revision.slice(0, 12)
      }, so the states it asked about are not at hand`,
    );
  }
  return new Map(dataset.cases.map((c) => [c.id, c]));
}

function instance(
  r: DecisionRecord,
  c: Case,
  ids: { evaluationId: string; modelId: string; collection: string },
): Promise<Record<string, unknown>> {
  const question = c.questions[r.question];
  const options = question ? optionsOf(question) : Object.keys(r.gold_probabilities ?? {});
  const raw = JSON.stringify({ state: c.state, question: { name: r.question, ...question } });
  const reference = r.gold === null ? [] : [r.gold]; // an unlabelled decision has none
  return sampleHash(raw, reference).then((hash) => ({
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: ids.evaluationId,
    model_id: ids.modelId,
    evaluation_name: ids.collection,
    evaluation_result_id: "accuracy",
    sample_id: `${r.case}/${r.question}`,
    sample_hash: hash,
    interaction_type: "single_turn",
    input: { raw, reference, choices: options },
    output: { raw: r.predicted === null ? [] : [JSON.stringify(r.predicted)] },
    answer_attribution: r.answer === null ? [] : [{
      turn_idx: 0,
      source: "output.raw",
      extracted_value: r.answer,
      extraction_method: "argmax of the predicted distribution (first listed option wins a tie)",
      is_terminal: true,
    }],
    evaluation: { score: r.correct ? 1 : 0, is_correct: r.correct },
    performance: { latency_ms: r.latency_ms },
    error: r.error ? `${r.error.kind}: ${r.error.message}` : null,
    metadata: strings({
      case: r.case,
      workflow: r.workflow,
      question: r.question,
      type: r.type,
      confidence: r.confidence,
      kl: r.kl,
      brier: r.brier,
      predicted: r.predicted === null ? null : JSON.stringify(r.predicted),
      gold_probabilities: JSON.stringify(r.gold_probabilities),
      attempts: r.attempts,
      request_input_tokens: r.input_tokens,
      calibrated: r.calibrated,
      endpoint: r.endpoint,
    }),
  }));
}

/** Where Every Eval Ever's shared datastore keeps the records (`data/<collection>/…`). */
export const EEE_DATASTORE_URL = "https://huggingface.co/datasets/evaleval/EEE_datastore";

/**
 * The address a run's Every Eval Ever record has once submitted to the shared datastore: the
 * same `data/typed-decisions/<developer>/<model>/<uuid>.json` path the export writes (the uuid is
 * derived from the run, so it is known before the record is published).
 *
 * @param run The run record.
 * @param modelId `--model-id`, when given.
 * @returns The URL of the record in the datastore.
 * @throws {RangeError} When `modelId` is malformed.
 */
export async function eeeRecordUrl(run: RunJson, modelId?: string): Promise<string> {
  const [developer, model] = exportModelId(run, modelId).split("/") as [string, string];
  return `${EEE_DATASTORE_URL}/blob/main/data/${EEE_COLLECTION}/${segment(developer)}/${
    segment(model)
  }/${await runUuid(run)}.json`;
}

/** A result's `uncertainty`: its 95% percentile bootstrap interval, when it has one. */
function uncertaintyOf(
  interval: readonly [number, number] | null | undefined,
  seed: number,
  samples?: number,
): { uncertainty?: object } {
  if (!interval) return {};
  return {
    uncertainty: {
      confidence_interval: {
        lower: interval[0],
        upper: interval[1],
        confidence_level: 0.95,
        method: `percentile bootstrap resampling cases (seed ${seed})`,
      },
      ...(samples !== undefined ? { num_samples: samples } : {}),
      num_bootstrap_samples: BOOTSTRAP_RESAMPLES,
    },
  };
}

/**
 * The per-lane and per-question results (subtasks): one result per column metric and group,
 * named `typed-decisions/<lane>` or `typed-decisions/<lane>/<question>`.
 */
function subtaskResults(
  rows: readonly SubtaskRow[],
  at: { sourceData: object; timestamp: string; seed: number; collection: string },
): object[] {
  const out: object[] = [];
  for (const row of rows) {
    for (const metric of SUMMARY_METRICS) {
      const score = row.metrics[metric.name];
      if (score === undefined || score === null) continue;
      const interval = row.intervals[metric.name] ?? null;
      const id = eeeMetricId(metric.name);
      out.push({
        evaluation_result_id: `${id}/${row.key}`,
        evaluation_name: `${at.collection}/${row.key}`,
        source_data: at.sourceData,
        evaluation_timestamp: at.timestamp,
        metric_config: {
          evaluation_description: `${metric.description}; ${row.level} ${row.key} only`,
          metric_id: id,
          metric_name: metric.label,
          metric_kind: metric.name === "accuracy" ? "accuracy" : "decibench",
          ...(metric.format === "percent" ? { metric_unit: "proportion" } : {}),
          metric_parameters: eeeMetricParameters(metric),
          lower_is_better: !metric.higherIsBetter,
          score_type: "continuous",
          min_score: bound(metric.range[0]),
          max_score: bound(metric.range[1]),
          additional_details: { subtask_of: at.collection, subtask_level: row.level },
        },
        score_details: {
          score,
          details: strings({
            subtask: row.key,
            level: row.level,
            decisions: row.decisions,
            answered: row.answered,
            errors: row.errors,
          }),
          ...uncertaintyOf(interval, at.seed),
        },
      });
    }
  }
  return out;
}

/**
 * Exports a run in the Every Eval Ever schema: the aggregate record and its instance-level file,
 * both validated against the vendored schemas.
 *
 * @param input The run and its decisions.
 * @param options `modelId`, `now` and `datasetDir`.
 * @returns Two files under `data/typed-decisions/<developer>/<model>/`: `<uuid>_samples.jsonl`
 *   and `<uuid>.json`.
 * @throws {RangeError} When `modelId` is malformed.
 * @throws {RangeError} When the run's dataset revision is not the one at hand, or it has no
 *   summary yet.
 * @throws {DatasetIntegrityError} When the vendored dataset fails its check.
 */
export async function exportEveryEvalEver(
  input: ExportInput,
  options: ExportOptions = {},
): Promise<ExportResult> {
  const { run } = input;
  if (!run.summary) {
    throw new RangeError(
      `Cannot export run "${run.id}" as every-eval-ever: it has no summary yet (status "${run.status}")`,
    );
  }
  // A user file's states come from the recorded file; Typed Decisions' from the vendored split.
  const userSet = userSetOf(run);
  const cases = userSet === null ? await casesOf(run, options) : null;
  const collection = userSet === null ? EEE_COLLECTION : segment(run.spec.workflow);
  const modelId = exportModelId(run, options.modelId);
  const [developer, model] = modelId.split("/") as [string, string];
  const uuid = await runUuid(run);
  const folder = `data/${collection}/${segment(developer)}/${segment(model)}`;
  const samplesPath = `${folder}/${uuid}_samples.jsonl`;
  const now = options.now ?? new Date();
  const evaluationId = `${collection}/${modelId}/${epochSeconds(run.started_at)}`;
  const ids = { evaluationId, modelId, collection };

  // The samples are made twice as they are streamed: once here, to validate every row and hash
  // the file (the aggregate names its checksum), and again as the file is written.
  const sampleLines = async function* (
    onRecord?: (r: DecisionRecord) => void,
  ): AsyncGenerator<string> {
    if (userSet !== null) {
      const runDir = input.dir;
      const format = "every-eval-ever";
      for await (
        const [r, c] of userSetDecisions(run, userSet, input.decisions(), { runDir, format })
      ) {
        onRecord?.(r);
        if (r.correct === null) continue; // unlabelled: no score to give it
        const row = await instance(r, c, ids);
        assertValid("every-eval-ever-instance", row, `run "${run.id}" as every-eval-ever`);
        yield JSON.stringify(row) + "\n";
      }
      return;
    }
    for await (const r of input.decisions()) {
      onRecord?.(r);
      if (r.correct === null) continue; // unlabelled: no score to give it
      const c = cases?.get(r.case);
      if (!c) {
        throw new RangeError(
          `Cannot export run "${run.id}" as every-eval-ever: case "${r.case}" is not in the vendored ${run.spec.split} split`,
        );
      }
      const row = await instance(r, c, ids);
      assertValid("every-eval-ever-instance", row, `run "${run.id}" as every-eval-ever`);
      yield JSON.stringify(row) + "\n";
    }
  };
  // node:crypto takes ~50 ms to load: only this export loads it (an incremental sha256).
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  let sampleCount = 0;
  const subtasks = new SubtaskCollector(run.spec.seed);
  const providers = new Set<string>(); // a relay's upstream providers (a handful)
  const collect = (r: DecisionRecord) => {
    subtasks.add(r);
    if (r.provider !== undefined && providers.size < 20) providers.add(r.provider);
  };
  for await (const line of sampleLines(collect)) {
    hash.update(line);
    sampleCount++;
  }
  const samplesSha256 = hash.digest("hex");

  const spec = run.spec;
  const provenance = eeeProvenance(run, options, [...providers]);
  const sourceData = userSet !== null ? userSetSourceData(run, userSet) : {
    dataset_name: EEE_COLLECTION,
    source_type: "hf_dataset",
    hf_repo: spec.dataset,
    hf_split: spec.split,
    samples_number: countOf(run.summary, "decisions") ?? sampleCount,
    additional_details: strings({
      revision: spec.revision,
      license: spec.license,
      cases: spec.cases,
      case_ids_sha256: spec.case_ids_sha256,
      questions_sha256: spec.questions_sha256,
    }),
  };
  const results = [];
  for (const metric of SUMMARY_METRICS) {
    const score = metricOf(run.summary, metric.name);
    if (score === null) continue;
    const interval = intervalOf(run.summary, metric.name);
    results.push({
      evaluation_result_id: eeeMetricId(metric.name),
      evaluation_name: collection,
      source_data: sourceData,
      evaluation_timestamp: epochSeconds(run.finished_at ?? run.started_at),
      metric_config: {
        evaluation_description: metric.description,
        metric_id: eeeMetricId(metric.name),
        metric_name: metric.label,
        metric_kind: metric.name === "accuracy" ? "accuracy" : "decibench",
        metric_parameters: eeeMetricParameters(metric),
        ...(metric.format === "percent" ? { metric_unit: "proportion" } : {}),
        lower_is_better: !metric.higherIsBetter,
        score_type: "continuous",
        min_score: bound(metric.range[0]),
        max_score: bound(metric.range[1]),
      },
      score_details: {
        score,
        details: strings({
          decisions: countOf(run.summary, "decisions"),
          answered: countOf(run.summary, "answered"),
          errors: countOf(run.summary, "errors"),
          status: run.status,
        }),
        ...uncertaintyOf(interval, spec.seed, spec.cases),
      },
      generation_config: {
        additional_details: strings({
          engine: spec.engine,
          endpoint: spec.endpoint,
          state_encoding: spec.state_encoding,
          request: "one request per case carrying all of its questions",
          parallel: spec.parallel,
          timeout_ms: spec.timeout_ms,
          retries: spec.retries,
          calibrated: spec.calibrated,
        }),
      },
    });
  }
  results.push(...subtaskResults(subtasks.rows(), {
    sourceData,
    timestamp: epochSeconds(run.finished_at ?? run.started_at),
    seed: spec.seed,
    collection,
  }));
  const aggregate = {
    schema_version: EEE_SCHEMA_VERSION,
    evaluation_id: evaluationId,
    evaluation_timestamp: epochSeconds(run.started_at),
    retrieved_timestamp: String(now.getTime() / 1000),
    source_metadata: {
      source_name: "decibench",
      source_type: "evaluation_run",
      source_organization_name: provenance.organization,
      evaluator_relationship: provenance.relationship,
      additional_details: provenance.basis,
    },
    eval_library: {
      name: "decibench",
      version: run.tool_version,
      additional_details: strings({
        run_id: run.id,
        workflow: spec.workflow,
        fingerprint: spec.fingerprint,
      }),
    },
    model_info: {
      name: spec.model,
      id: modelId,
      developer,
      ...(provenance.platform !== undefined ? { inference_platform: provenance.platform } : {}),
      ...(provenance.engine !== undefined ? { inference_engine: provenance.engine } : {}),
      additional_details: strings({
        deployment_type: provenance.deployment,
        model_availability: provenance.availability,
        wire_format: spec.engine,
        model_reported: run.model_reported,
        trained_on_train_split: options.trainedOnTrain,
      }),
    },
    evaluation_results: results,
    detailed_evaluation_results: {
      format: "jsonl",
      file_path: samplesPath,
      hash_algorithm: "sha256",
      checksum: samplesSha256,
      total_rows: sampleCount,
    },
  };
  assertValid("every-eval-ever", aggregate, `run "${run.id}" as every-eval-ever`);
  return {
    format: "every-eval-ever",
    files: [
      { path: samplesPath, chunks: sampleLines },
      textFile(`${folder}/${uuid}.json`, JSON.stringify(aggregate, null, 2) + "\n"),
    ],
  };
}
