/**
 * Zod schemas of the fitted model's files: the weights file (`fitted.json.gz`, decompressed) and
 * its manifest (`manifest.json`).
 *
 * @module
 */
import * as z from "zod";
import { QUESTION_TYPES, type QuestionType } from "../dataset/mod.ts";

/** Format tag written in every model file. */
export const MODEL_FORMAT = "decibench-softmax-v1";

/** The feature settings a model was trained with (see `featurize`). */
export interface ModelFeatureSettings {
  /** Number of hash buckets. */
  dimension: number;
  /** Factor on sign(x)·ln(1 + |x|). */
  numericScale: number;
  /** Word pairs of free text. */
  bigrams: boolean;
  /** Cross-field features. */
  relations: boolean;
}

/** Schema of {@linkcode ModelFeatureSettings}. */
export const ModelFeatureSettingsSchema: z.ZodType<ModelFeatureSettings> = z.object({
  dimension: z.number().int().positive(),
  numericScale: z.number(),
  bigrams: z.boolean(),
  relations: z.boolean(),
}).strict();

/** One question's softmax regression. */
export interface QuestionModel {
  /** Question name (`action`, `urgency`, …). */
  name: string;
  /** Question type. */
  type: QuestionType;
  /** Option keys as `optionsOf(question)` orders them. */
  options: string[];
  /** Logits are divided by this before the softmax. */
  temperature: number;
  /** Bias per option. */
  bias: number[];
  /** Weights, feature-major over the workflow's `features`: `weights[j * options.length + k]`. */
  weights: number[];
}

/** Schema of {@linkcode QuestionModel}. */
export const QuestionModelSchema: z.ZodType<QuestionModel> = z.object({
  name: z.string().min(1),
  type: z.enum(QUESTION_TYPES),
  options: z.array(z.string()).min(2),
  temperature: z.number().positive(),
  bias: z.array(z.number()),
  weights: z.array(z.number()),
}).strict();

/** The model of one workflow (one fixed set of questions). */
export interface WorkflowModel {
  /** Workflow name. */
  workflow: string;
  /** Hashed feature buckets used, ascending; position = compact feature id. */
  features: number[];
  /** One model per question, in the dataset's question order. */
  questions: QuestionModel[];
}

/** Schema of {@linkcode WorkflowModel}. */
export const WorkflowModelSchema: z.ZodType<WorkflowModel> = z.object({
  workflow: z.string().min(1),
  features: z.array(z.number().int().nonnegative()),
  questions: z.array(QuestionModelSchema).min(1),
}).strict();

/** A whole fitted model: the decompressed weights file. */
export interface FittedModel {
  /** Always {@linkcode MODEL_FORMAT}. */
  format: typeof MODEL_FORMAT;
  /** Feature settings used in training and prediction. */
  features: ModelFeatureSettings;
  /** Weights are multiples of this (they were rounded to it). */
  quantum: number;
  /** One model per workflow, sorted by name. */
  workflows: WorkflowModel[];
}

/** Schema of {@linkcode FittedModel}. */
export const FittedModelSchema: z.ZodType<FittedModel> = z.object({
  format: z.literal(MODEL_FORMAT),
  features: ModelFeatureSettingsSchema,
  quantum: z.number().positive(),
  workflows: z.array(WorkflowModelSchema).min(1),
}).strict();

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);

/** Held-out figures of one group of decisions. */
export interface HeldOutFigures {
  /** Decisions scored. */
  n: number;
  /** Accuracy against the gold label (a tie goes to the first-listed option). */
  accuracy: number;
  /** Mean KL(gold ‖ pred) before the temperature. */
  klBeforeTemperature: number;
  /** Mean KL(gold ‖ pred) with the fitted temperature. */
  kl: number;
  /** Mean Brier score with the fitted temperature. */
  brier: number;
}

/** Schema of {@linkcode HeldOutFigures}. */
export const HeldOutFiguresSchema: z.ZodType<HeldOutFigures> = z.object({
  n: z.number().int().nonnegative(),
  accuracy: z.number(),
  klBeforeTemperature: z.number(),
  kl: z.number(),
  brier: z.number(),
}).strict();

/** The manifest beside the weights file. */
export interface ModelManifest {
  /** Predictor name (`fitted`). */
  model: string;
  /** Always {@linkcode MODEL_FORMAT}. */
  format: typeof MODEL_FORMAT;
  /** One sentence on what the model is. */
  description: string;
  /** The data it was fitted on (never the test split). */
  trainedOn: {
    /** Dataset id. */
    dataset: string;
    /** Upstream revision. */
    revision: string;
    /** sha256 of the decompressed train JSONL. */
    sha256: string;
    /** Training cases. */
    rows: number;
    /** Always `train`. */
    split: "train";
  };
  /** Every training option, after defaults. */
  hyperParameters: Record<string, number | boolean>;
  /** Feature buckets used per workflow. */
  featureCounts: Record<string, number>;
  /** Held-out figures (model fitted on the other four fifths; temperatures fitted here too). */
  heldOut: {
    /** Cases fitted on. */
    fit: number;
    /** Cases held out. */
    heldOut: number;
    /** All held-out decisions. */
    overall: HeldOutFigures;
    /** Per `workflow/question`. */
    byQuestion: Record<string, HeldOutFigures>;
  };
  /** The weights file. */
  weights: {
    /** File name beside the manifest. */
    path: string;
    /** Size of the file. */
    bytes: number;
    /** sha256 of the file as stored (gzip). */
    sha256: string;
    /** sha256 of the decompressed JSON. */
    jsonSha256: string;
  };
}

/** Schema of {@linkcode ModelManifest}. */
export const ModelManifestSchema: z.ZodType<ModelManifest> = z.object({
  model: z.string().min(1),
  format: z.literal(MODEL_FORMAT),
  description: z.string(),
  trainedOn: z.object({
    dataset: z.string(),
    revision: z.string(),
    sha256: Sha256Schema,
    rows: z.number().int().positive(),
    split: z.literal("train"),
  }).strict(),
  hyperParameters: z.record(z.string(), z.union([z.number(), z.boolean()])),
  featureCounts: z.record(z.string(), z.number().int().nonnegative()),
  heldOut: z.object({
    fit: z.number().int().nonnegative(),
    heldOut: z.number().int().nonnegative(),
    overall: HeldOutFiguresSchema,
    byQuestion: z.record(z.string(), HeldOutFiguresSchema),
  }).strict(),
  weights: z.object({
    path: z.string().min(1),
    bytes: z.number().int().positive(),
    sha256: Sha256Schema,
    jsonSha256: Sha256Schema,
  }).strict(),
}).strict();
