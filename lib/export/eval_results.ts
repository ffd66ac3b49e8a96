/**
 * The Hugging Face Hub's `.eval_results/*.yaml` file: the results a model repository adds to
 * appear on a benchmark dataset's leaderboard (huggingface/hub-docs `eval_results.yaml`,
 * huggingface_hub's `EvalResultEntry`). One entry per leaderboard metric of the Typed Decisions
 * card that decibench computes by the card's definition — accuracy, KL from gold and Brier — each
 * with the dataset revision, the run date and notes naming the decibench version, whether the
 * model was trained on the train split and the conventions behind the figure (KL floor, pooling,
 * tie rule). The card's ECE definition is unpublished, so decibench's 10-bin ECE is not exported.
 *
 * @module
 */
import YAML from "yaml";
import { DATASET_ID } from "../dataset/mod.ts";
import { leaderboardProblem } from "./card_protocol.ts";
import { eeeRecordUrl } from "./every_eval_ever.ts";
import { intervalOf, metricOf } from "./summary_values.ts";
import { type ExportInput, type ExportOptions, type ExportResult, textFile } from "./types.ts";
import { assertValid } from "./validate.ts";

/**
 * The card's leaderboard metrics decibench computes by the card's definitions, each exported as
 * one entry whose `task_id` is its name (the card's ECE column has no published definition).
 */
export const LEADERBOARD_METRICS: readonly string[] = ["accuracy", "kl", "brier"];

/** The conventions behind each exported figure, stated in its notes. */
const CONVENTIONS: Readonly<Record<string, string>> = {
  accuracy:
    "accuracy = predicted answer (argmax; on a tie the option listed first wins) equals the gold label; failed decisions count as misses; pooled over all decisions",
  kl:
    "KL(gold || predicted) in nats, predicted probabilities floored at 1e-12; mean pooled over all decisions, not averaged per question",
  brier:
    "Brier = sum over the union of answers of (predicted - gold probability)^2, range 0-2; mean pooled over all decisions, not averaged per question",
};

/**
 * Reference-server predictors built from the Typed Decisions train split: a run of one of them
 * is a fine-tuned row, never a zero-shot one.
 */
export const TRAIN_SPLIT_PREDICTORS: readonly string[] = ["fitted", "prior"];

/**
 * Whether a run answered with a predictor built from the train split (the embedded reference
 * server's `fitted` or `prior`).
 *
 * @param run The run record.
 * @returns The predictor's name, or null.
 */
export function trainSplitPredictor(run: ExportInput["run"]): string | null {
  const predictor = run.spec.reference?.predictor;
  return typeof predictor === "string" && TRAIN_SPLIT_PREDICTORS.includes(predictor)
    ? predictor
    : null;
}

/**
 * The `--source-url` keyword that links each entry to the run's Every Eval Ever record in the
 * shared datastore.
 */
export const SOURCE_EVERY_EVAL_EVER = "every-eval-ever";

/** The file's path inside a model repository. */
export const EVAL_RESULTS_PATH = ".eval_results/typed-decisions.yaml";

/** One entry of the YAML file (the `EvalResultEntry` fields decibench fills). */
export interface EvalResultEntry {
  /** The benchmark dataset and task. */
  dataset: {
    /** Hub id of the benchmark dataset. */
    id: string;
    /** Task id (the metric's name). */
    task_id: string;
    /** Dataset revision (commit). */
    revision: string;
  };
  /** The metric value, as in run.json. */
  value: number;
  /** When the run finished (ISO 8601). */
  date?: string;
  /** Where the evidence is, when given. */
  source?: {
    /** Link to the evidence. */
    url: string;
    /** Display name. */
    name: string;
  };
  /** Set-up details: training on the train split, decibench version, interval. */
  notes: string;
}

function intervalText(name: string, lo: number, hi: number): string {
  return name === "accuracy"
    ? `95% CI ${(lo * 100).toFixed(1)}–${(hi * 100).toFixed(1)}%`
    : `95% CI ${lo.toFixed(3)}–${hi.toFixed(3)}`;
}

/**
 * Builds the entries of a run's `.eval_results` file.
 *
 * @param input The run and its decisions.
 * @param options `trainedOnTrain` (required) and `sourceUrl`.
 * @returns One entry per leaderboard metric that has a value.
 * @throws {RangeError} When `trainedOnTrain` is not stated, or the run is not a complete
 *   card-protocol run (naming why).
 */
export async function evalResultEntries(
  input: ExportInput,
  options: ExportOptions,
): Promise<EvalResultEntry[]> {
  const { run } = input;
  const trainedPredictor = trainSplitPredictor(run);
  if (trainedPredictor !== null && options.trainedOnTrain === false) {
    throw new RangeError(
      `Cannot export run "${run.id}" as eval-results with --trained-on-train no: the reference server's "${trainedPredictor}" predictor is built from the Typed Decisions train split; say --trained-on-train yes`,
    );
  }
  const trainedOnTrain = trainedPredictor !== null ? true : options.trainedOnTrain;
  if (trainedOnTrain === undefined) {
    throw new RangeError(
      "Cannot export as eval-results: say whether the model was trained on the Typed Decisions train split with --trained-on-train yes|no (the card keeps fine-tuned and zero-shot rows apart)",
    );
  }
  let decisions = 0; // counted as streamed: nothing but the summary and this count is held
  for await (const _ of input.decisions()) decisions++;
  const problem = leaderboardProblem(run, decisions);
  if (problem) {
    throw new RangeError(`Cannot export run "${run.id}" as eval-results: ${problem}`);
  }
  const training = trainedOnTrain
    ? "fine-tuned on the Typed Decisions train split"
    : "not trained on the Typed Decisions train split (zero-shot)";
  // `every-eval-ever`: the run's record in Every Eval Ever's datastore (exported with the same
  // --model-id, then submitted there).
  const sourceUrl = options.sourceUrl === SOURCE_EVERY_EVAL_EVER
    ? await eeeRecordUrl(run, options.modelId)
    : options.sourceUrl;
  const entries: EvalResultEntry[] = [];
  for (const name of LEADERBOARD_METRICS) {
    const value = metricOf(run.summary, name);
    if (value === null) continue;
    const interval = intervalOf(run.summary, name);
    const notes = [
      training,
      `decibench ${run.tool_version}`,
      `${decisions} decisions`,
      ...(CONVENTIONS[name] !== undefined ? [CONVENTIONS[name]] : []),
      ...(interval ? [intervalText(name, interval[0], interval[1])] : []),
    ].join("; ");
    const entry: EvalResultEntry = {
      dataset: { id: DATASET_ID, task_id: name, revision: run.spec.revision },
      value,
      ...(run.finished_at ? { date: run.finished_at } : {}),
      ...(sourceUrl !== undefined
        ? {
          source: {
            url: sourceUrl,
            name: options.sourceUrl === SOURCE_EVERY_EVAL_EVER
              ? `Every Eval Ever record of decibench run ${run.id}`
              : `decibench run ${run.id}`,
          },
        }
        : {}),
      notes,
    };
    entries.push(entry);
  }
  return entries;
}

/**
 * Exports a run as the Hugging Face `.eval_results/typed-decisions.yaml` file, validated against
 * the vendored schema before it is returned.
 *
 * @param input The run and its decisions.
 * @param options `trainedOnTrain` (required) and `sourceUrl`.
 * @returns The YAML file (path `.eval_results/typed-decisions.yaml`).
 * @throws {RangeError} When `trainedOnTrain` is not stated, or the run is not a complete
 *   card-protocol run.
 * @example
 * ```ts ignore
 * import { openRun } from "../record/mod.ts";
 * import { exportEvalResults } from "./eval_results.ts";
 * const { files } = await exportEvalResults(await openRun("runs/<id>"), { trainedOnTrain: false });
 * ```
 */
export async function exportEvalResults(
  input: ExportInput,
  options: ExportOptions,
): Promise<ExportResult> {
  const entries = await evalResultEntries(input, options);
  assertValid("eval-results", entries, `run "${input.run.id}" as eval-results`);
  // Strings double-quoted (dates stay strings for every YAML reader), keys plain, no folding.
  const text = YAML.stringify(entries, {
    defaultStringType: "QUOTE_DOUBLE",
    defaultKeyType: "PLAIN",
    lineWidth: 0,
  });
  return { format: "eval-results", files: [textFile(EVAL_RESULTS_PATH, text)] };
}
