/**
 * Training the fitted decision model: features from each state, one softmax regression per
 * workflow question on the gold distributions, a per-question temperature fitted on a held-out
 * fifth of the training cases, then (by default) a refit on every training case.
 *
 * @module
 */
import { type Case, optionsOf } from "../dataset/mod.ts";
import { scoreDecision } from "../metrics/mod.ts";
import { DEFAULT_DIMENSION, featurize, type SparseVector } from "./features.ts";
import { fnv1a32 } from "./_hash.ts";
import {
  type FittedModel,
  type HeldOutFigures,
  MODEL_FORMAT,
  type ModelFeatureSettings,
  type QuestionModel,
  type WorkflowModel,
} from "./schemas.ts";
import {
  fitSoftmax,
  fitTemperature,
  rowLogits,
  softmaxInPlace,
  type SoftmaxParameters,
  type SoftmaxRow,
} from "./softmax.ts";

/** Options of {@linkcode trainModel}. */
export interface TrainOptions {
  /**
   * Number of hash buckets.
   *
   * @default {262144}
   */
  dimension?: number;
  /**
   * Factor on a number's sign(x)·ln(1 + |x|) feature.
   *
   * @default {0.25}
   */
  numericScale?: number;
  /**
   * Word pairs of free text as features.
   *
   * @default {false}
   */
  bigrams?: boolean;
  /**
   * Cross-field equality and comparison features.
   *
   * @default {true}
   */
  relations?: boolean;
  /**
   * L2 penalty on the weights (the loss is a mean over cases).
   *
   * @default {0.0003}
   */
  l2?: number;
  /**
   * A feature bucket is used for a workflow when at least this many of its fitting cases have it.
   *
   * @default {2}
   */
  minCount?: number;
  /**
   * Seed of the held-out split.
   *
   * @default {7}
   */
  seed?: number;
  /**
   * Fraction of each workflow's cases held out to fit temperatures.
   *
   * @default {0.2}
   */
  heldOutFraction?: number;
  /**
   * Refit on every case after fitting temperatures (false keeps the model fitted on the rest).
   *
   * @default {true}
   */
  refit?: boolean;
  /**
   * L-BFGS iterations per question.
   *
   * @default {300}
   */
  maxIterations?: number;
  /**
   * Weights and biases are rounded to multiples of this.
   *
   * @default {0.0001}
   */
  quantum?: number;
}

/** What {@linkcode trainModel} returns. */
export interface TrainResult {
  /** The quantised model. */
  model: FittedModel;
  /** Every option after defaults. */
  hyperParameters: Required<TrainOptions>;
  /** Cases used to fit and held out. */
  split: { fit: number; heldOut: number };
  /** Held-out figures: overall and per `workflow/question`, by the model fitted on the rest. */
  heldOut: { overall: HeldOutFigures; byQuestion: Record<string, HeldOutFigures> };
}

interface QuestionSpec {
  name: string;
  type: QuestionModel["type"];
  options: string[];
}

interface Example {
  vector: SparseVector;
  caseItem: Case;
}

function resolveOptions(options: TrainOptions): Required<TrainOptions> {
  return {
    dimension: options.dimension ?? DEFAULT_DIMENSION,
    numericScale: options.numericScale ?? 0.25,
    bigrams: options.bigrams ?? false,
    relations: options.relations ?? true,
    l2: options.l2 ?? 0.0003,
    minCount: options.minCount ?? 2,
    seed: options.seed ?? 7,
    heldOutFraction: options.heldOutFraction ?? 0.2,
    refit: options.refit ?? true,
    maxIterations: options.maxIterations ?? 300,
    quantum: options.quantum ?? 0.0001,
  };
}

/**
 * The gold distribution of a case's question as a vector in option order.
 *
 * @param caseItem The case.
 * @param name Question name.
 * @param options Option keys in order.
 * @returns Probability per option.
 * @throws {TypeError} When the case has no gold answer for the question.
 */
export function goldVector(caseItem: Case, name: string, options: readonly string[]): Float64Array {
  const gold = caseItem.gold[name];
  if (!gold) {
    throw new TypeError(`Cannot read gold: case "${caseItem.id}" has no gold answer for "${name}"`);
  }
  return Float64Array.from(options, (option) => gold.probabilities[option] ?? 0);
}

function questionSpecs(caseItem: Case): QuestionSpec[] {
  return Object.entries(caseItem.questions).map(([name, question]) => ({
    name,
    type: question.type,
    options: optionsOf(question),
  }));
}

function sameSpecs(a: QuestionSpec[], b: QuestionSpec[]): boolean {
  return a.length === b.length && a.every((q, i) => {
    const other = b[i];
    return other !== undefined && other.name === q.name && other.type === q.type &&
      other.options.join("\u0000") === q.options.join("\u0000");
  });
}

/**
 * Splits case ids into held-out and fitting parts: ids are ordered by FNV-1a of `seed:id` (ties
 * by id) and the first `round(fraction · n)` are held out.
 *
 * @param ids Case ids of one workflow.
 * @param options Seed and fraction.
 * @returns The held-out ids.
 */
export function heldOutIds(
  ids: readonly string[],
  options: { seed: number; fraction: number },
): Set<string> {
  const keyed = ids.map((id) => ({ id, key: fnv1a32(`${options.seed}:${id}`) }));
  keyed.sort((a, b) => a.key - b.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const count = Math.round(options.fraction * ids.length);
  return new Set(keyed.slice(0, count).map((item) => item.id));
}

function vocabulary(examples: readonly Example[], minCount: number): number[] {
  const counts = new Map<number, number>();
  for (const { vector } of examples) {
    for (const index of vector.indices) counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count >= minCount).map(([index]) => index).sort((a, b) =>
    a - b
  );
}

function compactRow(
  vector: SparseVector,
  ids: Map<number, number>,
): { indices: Int32Array; values: Float64Array } {
  const indices: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < vector.indices.length; i++) {
    const id = ids.get(vector.indices[i] as number);
    if (id !== undefined) {
      indices.push(id);
      values.push(vector.values[i] as number);
    }
  }
  return { indices: Int32Array.from(indices), values: Float64Array.from(values) };
}

interface FittedWorkflow {
  features: number[];
  ids: Map<number, number>;
  parameters: SoftmaxParameters[];
}

function fitWorkflow(
  examples: readonly Example[],
  specs: readonly QuestionSpec[],
  settings: Required<TrainOptions>,
): FittedWorkflow {
  const features = vocabulary(examples, settings.minCount);
  const ids = new Map(features.map((index, position) => [index, position]));
  const compact = examples.map((example) => compactRow(example.vector, ids));
  const parameters = specs.map((spec) => {
    const rows: SoftmaxRow[] = examples.map((example, i) => ({
      ...(compact[i] as { indices: Int32Array; values: Float64Array }),
      target: goldVector(example.caseItem, spec.name, spec.options),
    }));
    return fitSoftmax(
      { rows, classes: spec.options.length, features: features.length, l2: settings.l2 },
      { maxIterations: settings.maxIterations },
    );
  });
  return { features, ids, parameters };
}

function flatParameters(parameters: SoftmaxParameters): Float64Array {
  const flat = new Float64Array(parameters.weights.length + parameters.bias.length);
  flat.set(parameters.weights);
  flat.set(parameters.bias, parameters.weights.length);
  return flat;
}

function quantise(values: Float64Array, quantum: number): number[] {
  return Array.from(values, (v) => {
    const q = Math.round(v / quantum) * quantum;
    // Fixed decimals make the serialised text stable; `+` drops a negative zero.
    return +q.toFixed(Math.max(0, Math.ceil(-Math.log10(quantum))));
  });
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}

function figures(
  scores: readonly { correct: boolean; kl: number; klBefore: number; brier: number }[],
): HeldOutFigures {
  return {
    n: scores.length,
    accuracy: mean(scores.map((s) => (s.correct ? 1 : 0))),
    klBeforeTemperature: mean(scores.map((s) => s.klBefore)),
    kl: mean(scores.map((s) => s.kl)),
    brier: mean(scores.map((s) => s.brier)),
  };
}

function distribution(options: readonly string[], p: Float64Array): Record<string, number> {
  return Object.fromEntries(options.map((option, k) => [option, p[k] as number]));
}

/**
 * Trains the model on training cases (never on the benchmark's test split).
 *
 * Per workflow (cases grouped by `workflow`; every case of a workflow must ask the same
 * questions with the same options): the held-out fifth is chosen by {@linkcode heldOutIds};
 * feature buckets present in at least `minCount` fitting cases form the vocabulary; each question
 * gets an L2-regularised softmax regression on the gold distributions (L-BFGS, biases started at
 * the log mean gold distribution); its temperature minimises the held-out cross-entropy. With
 * `refit`, the vocabulary and weights are then refitted on all the workflow's cases, keeping the
 * temperatures. Everything runs in a fixed order in float64, so the same cases and options give
 * the same model.
 *
 * @param cases Training cases.
 * @param options Hyper-parameters.
 * @returns The quantised model, the hyper-parameters and held-out figures.
 * @throws {RangeError} When there are no cases, or a workflow's cases ask different questions.
 * @example
 * ```ts ignore
 * import { trainModel } from "./train.ts";
 * const { model, heldOut } = trainModel(trainCases);
 * ```
 */
export function trainModel(cases: readonly Case[], options: TrainOptions = {}): TrainResult {
  const settings = resolveOptions(options);
  if (cases.length === 0) throw new RangeError("Cannot train the model: no training cases given");
  const featureSettings: ModelFeatureSettings = {
    dimension: settings.dimension,
    numericScale: settings.numericScale,
    bigrams: settings.bigrams,
    relations: settings.relations,
  };
  const groups = new Map<string, Case[]>();
  for (const caseItem of cases) {
    const group = groups.get(caseItem.workflow);
    if (group) group.push(caseItem);
    else groups.set(caseItem.workflow, [caseItem]);
  }
  const workflows: WorkflowModel[] = [];
  const allScores: { correct: boolean; kl: number; klBefore: number; brier: number }[] = [];
  const byQuestion: Record<string, HeldOutFigures> = {};
  let fitCount = 0;
  let heldOutCount = 0;
  for (const workflow of [...groups.keys()].sort()) {
    const group = groups.get(workflow) as Case[];
    const specs = questionSpecs(group[0] as Case);
    for (const caseItem of group) {
      if (!sameSpecs(specs, questionSpecs(caseItem))) {
        throw new RangeError(
          `Cannot train the model: case "${caseItem.id}" of workflow "${workflow}" asks different questions than "${
            (group[0] as Case).id
          }"`,
        );
      }
    }
    const examples = group.map((caseItem) => ({
      caseItem,
      vector: featurize(caseItem.state, featureSettings),
    }));
    const held = heldOutIds(group.map((c) => c.id), {
      seed: settings.seed,
      fraction: settings.heldOutFraction,
    });
    const fitPart = examples.filter((e) => !held.has(e.caseItem.id));
    const heldPart = examples.filter((e) => held.has(e.caseItem.id));
    fitCount += fitPart.length;
    heldOutCount += heldPart.length;
    const partial = fitWorkflow(fitPart, specs, settings);
    const temperatures = specs.map((spec, q) => {
      const flat = flatParameters(partial.parameters[q] as SoftmaxParameters);
      const logits = heldPart.map((e) =>
        rowLogits(flat, compactRow(e.vector, partial.ids), new Float64Array(spec.options.length))
      );
      const targets = heldPart.map((e) => goldVector(e.caseItem, spec.name, spec.options));
      const temperature = fitTemperature(logits, targets);
      const scores = heldPart.map((e, i) => {
        const gold = e.caseItem.gold[spec.name] as Case["gold"][string];
        const golden = { label: gold.label, probabilities: gold.probabilities };
        const before = softmaxInPlace(Float64Array.from(logits[i] as Float64Array));
        const after = softmaxInPlace(Float64Array.from(logits[i] as Float64Array), temperature);
        const scoreBefore = scoreDecision(spec.options, distribution(spec.options, before), golden);
        const score = scoreDecision(spec.options, distribution(spec.options, after), golden);
        return {
          correct: score.correct,
          kl: score.kl as number,
          klBefore: scoreBefore.kl as number,
          brier: score.brier as number,
        };
      });
      byQuestion[`${workflow}/${spec.name}`] = figures(scores);
      allScores.push(...scores);
      return temperature;
    });
    const final = settings.refit && heldPart.length > 0
      ? fitWorkflow(examples, specs, settings)
      : partial;
    workflows.push({
      workflow,
      features: final.features,
      questions: specs.map((spec, q) => {
        const parameters = final.parameters[q] as SoftmaxParameters;
        return {
          name: spec.name,
          type: spec.type,
          options: spec.options,
          temperature: +(temperatures[q] as number).toFixed(6),
          bias: quantise(parameters.bias, settings.quantum),
          weights: quantise(parameters.weights, settings.quantum),
        };
      }),
    });
  }
  return {
    model: {
      format: MODEL_FORMAT,
      features: featureSettings,
      quantum: settings.quantum,
      workflows,
    },
    hyperParameters: settings,
    split: { fit: fitCount, heldOut: heldOutCount },
    heldOut: { overall: figures(allScores), byQuestion },
  };
}
