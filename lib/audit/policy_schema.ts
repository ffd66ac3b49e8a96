/**
 * `policy.json`: a decision policy chosen by `deno task policy` over a labelled run and applied by
 * `deno task gate --policy` — the question it is for, the objective with α and δ, where its
 * labels came from, the fitted calibration, and per lane the bar with what the selection part
 * certified and what the held-out part measured. The zod schema validates a file read back; the
 * interfaces are the public contract (checked equal at compile time); `policyJsonSchema()` is the
 * JSON Schema the package ships as `schemas/policy.schema.json`.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import { QUESTION_TYPES, type QuestionType } from "../dataset/mod.ts";
import { RECALIBRATION_METHODS, type RecalibrationMethod } from "../metrics/mod.ts";

/** The version of `policy.json` this tool writes and reads. */
export const POLICY_VERSION = 1;

/** Where the package ships the policy's JSON Schema, relative to its root. */
export const POLICY_SCHEMA_PATH = "schemas/policy.schema.json";

/** What a policy controls. */
export const POLICY_OBJECTIVES = ["false-pass", "selective-risk", "cost"] as const;

/** A policy's objective. */
export type PolicyObjective = typeof POLICY_OBJECTIVES[number];

const interval = z.tuple([z.number(), z.number()]).nullable();
const figure = z.object({ value: z.number().nullable(), interval });
const beforeAfter = z.object({ before: figure, after: figure });

/** A figure with its 95% bootstrap interval (null without items). */
export interface PolicyFigure {
  /** The value. */
  value: number | null;
  /** 95% percentile bootstrap interval. */
  interval: [number, number] | null;
}

/** A figure before and after the calibration, on held-out cases. */
export interface PolicyBeforeAfter {
  /** With the model's own probabilities. */
  before: PolicyFigure;
  /** With the calibrated ones. */
  after: PolicyFigure;
}

const CalibrationSchema = z.object({
  method: z.enum([...RECALIBRATION_METHODS, "none"]),
  params: z.record(z.string(), z.union([z.number(), z.array(z.number())])),
  fitN: z.number().int().min(0),
  lanes: z.record(
    z.string(),
    z.object({
      params: z.record(z.string(), z.union([z.number(), z.array(z.number())])),
      fitN: z.number().int().min(0),
    }),
  ).optional().describe(
    "With --per-lane: each lane's own fitted parameters (params above: all lanes, for a lane without its own)",
  ),
  heldout: z.object({
    n: z.number().int().min(0),
    ece: beforeAfter,
    nll: beforeAfter,
    brier: beforeAfter,
  }),
});

/** The calibration a policy applies before its bars. */
export interface PolicyCalibration {
  /** `temperature`, `platt`, `isotonic`, or `none` (probabilities used as returned). */
  method: RecalibrationMethod | "none";
  /** The fitted parameters (`{}` for `none`). */
  params: Record<string, number | number[]>;
  /** Labelled cases it was fitted on. */
  fitN: number;
  /**
   * With `--per-lane`: each lane's own parameters and fit size; `params` (fitted on all lanes)
   * serves a lane without its own.
   */
  lanes?: Record<string, { params: Record<string, number | number[]>; fitN: number }> | undefined;
  /** Before/after on the held-out part: top-label 10-bin ECE, NLL, Brier. */
  heldout: { n: number; ece: PolicyBeforeAfter; nll: PolicyBeforeAfter; brier: PolicyBeforeAfter };
}

const HeldoutSchema = z.object({
  n: z.number().int().min(0).describe("Held-out labelled cases of the lane"),
  events: z.number().int().min(0).nullable().describe("False passes or wrong answers"),
  trials: z.number().int().min(0).nullable().describe('Gold "no" cases decided, or answered cases'),
  rate: z.number().nullable().describe("events ÷ trials"),
  upper95: z.number().nullable().describe(
    "One-sided 95% exact (Clopper–Pearson) upper bound on the rate",
  ),
  coverage: z.number().nullable().describe("Share of the lane's cases decided (not escalated)"),
  passRate: z.number().nullable().optional(),
  expectedCost: figure.optional(),
  realisedCost: figure.optional(),
});

/** A lane's figures on the held-out part. */
export interface PolicyHeldout {
  /** Held-out labelled cases of the lane. */
  n: number;
  /** Events counted: false passes (`false-pass`) or wrong answers (`selective-risk`). */
  events: number | null;
  /** What they are counted among: gold "no" cases, or answered cases. */
  trials: number | null;
  /** events ÷ trials, null when there are none (or the lane escalates everything). */
  rate: number | null;
  /** One-sided 95% exact (Clopper–Pearson) upper bound on the rate. */
  upper95: number | null;
  /** Share of the lane's cases the policy decides (not escalated). */
  coverage: number | null;
  /** `false-pass`: share of the lane's cases that pass (null when it escalates every case). */
  passRate?: number | null | undefined;
  /** `cost`: mean expected cost per case under the calibrated distribution, with its interval. */
  expectedCost?: PolicyFigure | undefined;
  /** `cost`: mean realised cost per case against the gold labels, with its interval. */
  realisedCost?: PolicyFigure | undefined;
}

const LaneSchema = z.object({
  certified: z.boolean().describe(
    "Whether the select part certified a bar; an uncertified lane escalates every case",
  ),
  threshold: z.number().nullable().describe(
    "The bar on the calibrated probability (pass or answer when ≥ it); null when uncertified",
  ),
  selectN: z.number().int().min(0).describe(
    'Trials in the select part: gold "no" cases (false-pass) or answered cases (selective-risk)',
  ),
  selectFailures: z.number().int().min(0).nullable().describe(
    "Events at the bar in the select part: false passes or wrong answers",
  ),
  neededSelectN: z.number().int().min(0).nullable().describe(
    "Uncertified: trials the select part would need to certify any bar with zero events",
  ),
  heldout: HeldoutSchema.describe("What the held-out part measured at the bar"),
});

/** One lane of a policy. */
export interface PolicyLane {
  /**
   * Whether the selection part certified a bar. An uncertified lane escalates every case (`cost`
   * lanes are never certified: that objective carries no guarantee).
   */
  certified: boolean;
  /** The bar (pass, or answer, when the calibrated probability ≥ it); null when uncertified. */
  threshold: number | null;
  /** Trials in the selection part: gold "no" cases (`false-pass`) or cases (`selective-risk`). */
  selectN: number;
  /** Events at the bar in the selection part (false passes or wrong answers), null without a bar. */
  selectFailures: number | null;
  /**
   * Uncertified: the trials the selection part would need to certify any bar with zero events
   * at this α and per-lane δ; null when certified.
   */
  neededSelectN: number | null;
  /** What the held-out part measured. */
  heldout: PolicyHeldout;
}

/** `policy.json`'s schema (validates a file read back). */
export const PolicySchema = z.object({
  version: z.literal(POLICY_VERSION),
  tool: z.string(),
  tool_version: z.string(),
  created_at: z.string(),
  question: z.string().min(1).describe("The question the policy decides"),
  type: z.enum(QUESTION_TYPES).describe("Its type"),
  definition: z.record(z.string(), z.unknown()).nullable().describe(
    "The question as asked (type, instructions, criteria); the gate refuses a workflow whose question differs",
  ),
  options: z.array(z.string()).describe("The question's options, in order"),
  objective: z.enum(POLICY_OBJECTIVES).describe("What the bars control"),
  alpha: z.number().gt(0).lt(1).describe("The rate each certified lane's bar keeps below"),
  delta: z.number().gt(0).lt(1).describe(
    "The chance, over the labelled sample, that any certified lane's rate exceeds alpha",
  ),
  deltaPerLane: z.number().gt(0).lt(1).describe("delta ÷ lanes (Bonferroni)"),
  guarantee: z.string().describe("The guarantee in words"),
  costs: z.record(z.string(), z.record(z.string(), z.number())).nullable().describe(
    "cost objective: gold option → action (options and escalate) → cost",
  ),
  source: z.object({
    run: z.string(),
    fingerprint: z.string(),
    questionSetSha256: z.string().nullable(),
    questionsSha256: z.string(),
  }),
  split: z.object({
    ratio: z.tuple([z.number().min(0), z.number().min(0), z.number().min(0)]),
    seed: z.number().int(),
    fit: z.number().int().min(0),
    select: z.number().int().min(0),
    heldout: z.number().int().min(0),
    unlabelled: z.number().int().min(0),
    errors: z.number().int().min(0),
  }),
  calibration: CalibrationSchema.describe(
    "The calibration applied before the bars, with its held-out before/after figures",
  ),
  lanes: z.record(z.string(), LaneSchema).describe("Per lane, by name"),
});

/** `policy.json`. */
export interface Policy {
  /** Format version (1). */
  version: 1;
  /** Tool that wrote it. */
  tool: string;
  /** Its version. */
  tool_version: string;
  /** When it was written (ISO 8601). */
  created_at: string;
  /** The question it decides. */
  question: string;
  /** Its type. */
  type: QuestionType;
  /**
   * The question as asked (type, instructions, criteria or levels), null when the run did not
   * record it (a Typed Decisions run): the gate refuses a workflow whose question differs.
   */
  definition: Record<string, unknown> | null;
  /** Its options, in order (`true`, `false` for yes/no). */
  options: string[];
  /** What it controls. */
  objective: PolicyObjective;
  /** The risk level α: the rate each certified lane's bar keeps below. */
  alpha: number;
  /** The error level δ: the chance, over the labelled sample, that any lane's rate exceeds α. */
  delta: number;
  /** δ ÷ the number of lanes (Bonferroni), the level each lane is tested at. */
  deltaPerLane: number;
  /** The guarantee in words. */
  guarantee: string;
  /** `cost`: the cost matrix, gold option → action (options and `escalate`) → cost. */
  costs: Record<string, Record<string, number>> | null;
  /** The labelled run it was chosen on. */
  source: {
    /** Run id. */
    run: string;
    /** The run's comparison fingerprint. */
    fingerprint: string;
    /** sha256 of the run's question-set file, null for Typed Decisions. */
    questionSetSha256: string | null;
    /** sha256 of the run's questions. */
    questionsSha256: string;
  };
  /** How the labelled cases were split (seeded, stratified by lane). */
  split: {
    /** The fit : select : held-out ratio. */
    ratio: [number, number, number];
    /** Seed of the shuffle. */
    seed: number;
    /** Cases fitting the calibration (and ordering the selective-risk bars). */
    fit: number;
    /** Cases choosing the bars. */
    select: number;
    /** Cases reporting them. */
    heldout: number;
    /** Decisions without a gold label (not used). */
    unlabelled: number;
    /** Decisions that errored (not used). */
    errors: number;
  };
  /** The calibration applied before the bars. */
  calibration: PolicyCalibration;
  /** Per lane, by name. */
  lanes: Record<string, PolicyLane>;
}

type _SchemasMatch = [
  Assert<Equals<z.infer<typeof PolicySchema>, Policy>>,
];

/**
 * Reads `policy.json` text.
 *
 * @param text The file's text.
 * @param file The file, for messages.
 * @returns The policy.
 * @throws {SyntaxError} When it is not JSON.
 * @throws {TypeError} When a field is invalid (named with its value's problem).
 */
export function parsePolicy(text: string, file: string): Policy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `Cannot read policy "${file}": it is not JSON (${(error as Error).message})`,
    );
  }
  const parsed = PolicySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(
      `Cannot read policy "${file}": field "${issue?.path.join(".") || "(root)"}" is invalid (${
        issue?.message ?? "unknown"
      }); write it with deno task policy`,
    );
  }
  return parsed.data as Policy;
}

/**
 * The JSON Schema (draft 2020-12) of `policy.json`, generated from its zod schema.
 *
 * @returns The schema as a JSON value.
 */
export function policyJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(PolicySchema, { io: "output", unrepresentable: "any" });
  const { $schema, ...rest } = generated as Record<string, unknown>;
  return {
    $schema,
    title: "decibench policy",
    description:
      "A decision policy written by deno task policy and applied by deno task gate --policy: per lane, the bar on the calibrated probability chosen by Learn then Test with its guarantee.",
    ...rest,
  };
}

/**
 * {@linkcode policyJsonSchema} as the text of `schemas/policy.schema.json`.
 *
 * @returns Pretty JSON with a final line feed.
 */
export function policyJsonSchemaText(): string {
  return JSON.stringify(policyJsonSchema(), null, 2) + "\n";
}
