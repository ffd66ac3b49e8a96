/**
 * `run.json`'s `policy`: a decision policy (`deno task policy`) applied to a run's answers after
 * they arrive (`bench --policy`), per lane: the bar, the verdicts and — with labels — the rate the
 * policy bounds with its one-sided 95% exact bounds and whether it still holds. The gate's lanes
 * under `--policy` use the same shape.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import type { RunSink } from "./sink.ts";

const count = z.number().int().min(0);

/** A lane's verdict counts. */
export const RunPolicyVerdictsSchema = z.object({
  pass: count,
  fail: count,
  answer: count,
  escalate: count,
  undecided: count,
});

/** A lane's verdict counts under a policy. */
export interface RunPolicyVerdicts {
  /** Yes/no questions: calibrated P(yes) at or above the bar (or the action `true`). */
  pass: number;
  /** Yes/no questions: below the bar (or the action `false`). */
  fail: number;
  /** Questions of more than two options: answered with an option (not escalated). */
  answer: number;
  /** Handed to a person: an uncertified or unknown lane, or below the bar (`selective-risk`). */
  escalate: number;
  /** The case could not be decided: its answer errored. */
  undecided: number;
}

/** One lane of a run's policy result. */
export const RunPolicyLaneSchema = z.object({
  lane: z.string(),
  known: z.boolean(),
  certified: z.boolean(),
  threshold: z.number().nullable(),
  neededSelectN: z.number().int().nullable(),
  verdicts: RunPolicyVerdictsSchema,
  labelled: count,
  events: count,
  trials: count,
  rate: z.number().nullable(),
  lower95: z.number().nullable(),
  upper95: z.number().nullable(),
  holds: z.boolean().nullable(),
});

/** One lane of a run's policy result. */
export interface RunPolicyLane {
  /** The lane. */
  lane: string;
  /** False when the policy has no entry for the lane (its cases escalate). */
  known: boolean;
  /** Whether the policy certified a bar for the lane. */
  certified: boolean;
  /** The lane's bar on the calibrated probability, null when it escalates (or `cost`). */
  threshold: number | null;
  /** Trials the lane's select part would need to certify a bar, null when certified. */
  neededSelectN: number | null;
  /** Verdict counts. */
  verdicts: RunPolicyVerdicts;
  /** Labelled cases of the lane with a verdict (escalated ones included). */
  labelled: number;
  /** False passes (`false-pass`) or wrong answers among answered cases (`selective-risk`). */
  events: number;
  /** Gold "no" cases passed or failed, or answered cases. */
  trials: number;
  /** events ÷ trials: the realised rate, null without trials. */
  rate: number | null;
  /** One-sided 95% exact (Clopper–Pearson) lower bound on the rate, null without trials. */
  lower95: number | null;
  /** One-sided 95% exact (Clopper–Pearson) upper bound on the rate, null without trials. */
  upper95: number | null;
  /**
   * True when the policy still holds (the lower bound is at most α), false when it no longer
   * does; null when it was not checked: no labelled trial, an uncertified lane, or `cost`.
   */
  holds: boolean | null;
}

/** `run.json`'s `policy`. */
export const RunPolicySchema = z.object({
  file: z.string(),
  sha256: z.string(),
  question: z.string(),
  type: z.string(),
  objective: z.enum(["false-pass", "selective-risk", "cost"]),
  alpha: z.number(),
  delta: z.number(),
  calibration: z.string(),
  source: z.object({ run: z.string(), fingerprint: z.string() }),
  lanes: z.array(RunPolicyLaneSchema),
});

/** A decision policy applied to a run's (or a gate's) answers. */
export interface RunPolicy {
  /** The policy file as given. */
  file: string;
  /** sha256 of its bytes. */
  sha256: string;
  /** The question it decides. */
  question: string;
  /** The question's type. */
  type: string;
  /** What each lane's bar controls. */
  objective: "false-pass" | "selective-risk" | "cost";
  /** The rate each certified lane keeps below. */
  alpha: number;
  /** The chance the guarantee fails. */
  delta: number;
  /** The calibration applied before the bars (`temperature`, `platt`, `isotonic`, `none`). */
  calibration: string;
  /** The labelled run it was chosen on: its id and comparison fingerprint. */
  source: { run: string; fingerprint: string };
  /** Per lane with cases, sorted by lane. */
  lanes: RunPolicyLane[];
}

/**
 * A sink that applies a policy to a run's answers: fed each answered case like any sink, it
 * gives the run's `policy` section when the run ends (`RunOptions.policy`).
 */
export interface RunPolicySink extends RunSink {
  /**
   * The policy's result over the cases fed so far.
   *
   * @returns The `policy` section of `run.json`.
   */
  section(): RunPolicy;
}

type _SchemasMatch = [
  Assert<Equals<z.infer<typeof RunPolicyVerdictsSchema>, RunPolicyVerdicts>>,
  Assert<Equals<z.infer<typeof RunPolicyLaneSchema>, RunPolicyLane>>,
  Assert<Equals<z.infer<typeof RunPolicySchema>, RunPolicy>>,
];
