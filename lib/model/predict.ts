/**
 * Prediction with a fitted model: compiled once (typed arrays, a bucket → feature id map per
 * workflow), then one feature pass and a few sparse dot products per request.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import { type FeatureOptions, featurize } from "./features.ts";
import { identifyWorkflow, type WorkflowSignature } from "./identify.ts";
import type { FittedModel } from "./schemas.ts";
import { softmaxInPlace } from "./softmax.ts";

/** A compiled model. */
export interface CompiledModel {
  /** The workflows it can answer, for identification. */
  signatures: WorkflowSignature[];
  /**
   * Distributions for every requested question, in request order.
   *
   * @param state The decision state.
   * @param questions The questions asked.
   * @returns Option → probability per question.
   * @throws {RangeError} When the questions match no trained workflow or several.
   */
  predict(
    state: unknown,
    questions: Record<string, Question>,
  ): Record<string, Record<string, number>>;
}

interface CompiledQuestion {
  options: string[];
  temperature: number;
  bias: Float64Array;
  weights: Float64Array;
}

interface CompiledWorkflow {
  ids: Map<number, number>;
  questions: Map<string, CompiledQuestion>;
}

/**
 * Compiles a fitted model for fast prediction.
 *
 * @param model The model (as read from its file).
 * @returns The compiled model.
 * @throws {RangeError} When a question's weights or biases do not fit its features and options.
 * @example
 * ```ts ignore
 * import { compileModel } from "./predict.ts";
 * const compiled = compileModel(model);
 * compiled.predict(caseItem.state, caseItem.questions);
 * ```
 */
export function compileModel(model: FittedModel): CompiledModel {
  const featureOptions: FeatureOptions = { ...model.features };
  const compiled: CompiledWorkflow[] = model.workflows.map((workflow) => {
    const ids = new Map(workflow.features.map((bucket, position) => [bucket, position]));
    const questions = new Map<string, CompiledQuestion>();
    for (const question of workflow.questions) {
      const k = question.options.length;
      if (question.bias.length !== k || question.weights.length !== k * workflow.features.length) {
        throw new RangeError(
          `Cannot load the model: question "${workflow.workflow}/${question.name}" has ${question.bias.length} biases and ${question.weights.length} weights for ${k} options and ${workflow.features.length} features`,
        );
      }
      questions.set(question.name, {
        options: question.options,
        temperature: question.temperature,
        bias: Float64Array.from(question.bias),
        weights: Float64Array.from(question.weights),
      });
    }
    return { ids, questions };
  });
  const signatures: WorkflowSignature[] = model.workflows.map((workflow) => ({
    workflow: workflow.workflow,
    questions: new Map(workflow.questions.map((q) => [q.name, q.options])),
  }));
  return {
    signatures,
    predict(
      state: unknown,
      questions: Record<string, Question>,
    ): Record<string, Record<string, number>> {
      const index = identifyWorkflow(questions, signatures);
      const workflow = compiled[index] as CompiledWorkflow;
      const vector = featurize(state, featureOptions);
      const ids: number[] = [];
      const values: number[] = [];
      for (let i = 0; i < vector.indices.length; i++) {
        const id = workflow.ids.get(vector.indices[i] as number);
        if (id !== undefined) {
          ids.push(id);
          values.push(vector.values[i] as number);
        }
      }
      const out: Record<string, Record<string, number>> = {};
      for (const name of Object.keys(questions)) {
        const question = workflow.questions.get(name) as CompiledQuestion;
        const k = question.options.length;
        const logits = Float64Array.from(question.bias);
        for (let i = 0; i < ids.length; i++) {
          const base = (ids[i] as number) * k;
          const v = values[i] as number;
          for (let c = 0; c < k; c++) {
            logits[c] = (logits[c] as number) + v * (question.weights[base + c] as number);
          }
        }
        softmaxInPlace(logits, question.temperature);
        const distribution: Record<string, number> = {};
        for (let c = 0; c < k; c++) {
          distribution[question.options[c] as string] = logits[c] as number;
        }
        out[name] = distribution;
      }
      return out;
    },
  };
}
