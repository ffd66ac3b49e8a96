/**
 * Applying a decision policy to one answer: the calibration, then the lane's bar (or, for the
 * `cost` objective, the action of least expected cost). `choosePolicy` scores its held-out part
 * with the same function the gate applies.
 *
 * @module
 */
import { applyCalibration } from "../metrics/mod.ts";
import type { Policy } from "./policy_schema.ts";

/** What a policy decides for one answer. */
export interface PolicyDecision {
  /** The action: one of the question's options, or `escalate` (a person decides). */
  action: string;
  /** The calibrated distribution the decision was made on. */
  calibrated: Record<string, number>;
}

/** A policy as the gate applies it: the policy, its file and the file's sha256. */
export interface GatePolicy {
  /** The policy read from the file. */
  policy: Policy;
  /** The file's path. */
  file: string;
  /** sha256 of the file's bytes (recorded with each verdict). */
  sha256: string;
}

/** The action that hands a case to a person. */
export const ESCALATE = "escalate";

/**
 * The policy's calibrated distribution of an answer.
 *
 * @param policy The policy.
 * @param predicted The distribution as returned.
 * @param lane The case's lane: its own calibration when the policy has one per lane.
 * @returns The calibrated distribution (the same values for calibration `none`).
 */
export function calibrate(
  policy: Pick<Policy, "calibration">,
  predicted: Readonly<Record<string, number>>,
  lane?: string,
): Record<string, number> {
  const { method, params, lanes } = policy.calibration;
  if (method === "none") return { ...predicted };
  const own = lane === undefined ? undefined : lanes?.[lane];
  return applyCalibration({ method, params: own?.params ?? params }, predicted);
}

/**
 * Decides one answer with a policy: `false-pass` passes (`true`) when the calibrated P(yes) ≥ the
 * lane's bar and fails (`false`) below it; `selective-risk` answers the calibrated top option when
 * its probability ≥ the bar; `cost` takes the action of least expected cost under the calibrated
 * distribution (ties: the first option in order, `escalate` last). A lane the policy does not
 * certify (or does not know) escalates under `false-pass` and `selective-risk`.
 *
 * @param policy The policy.
 * @param lane The case's lane.
 * @param predicted The distribution as returned.
 * @returns The action and the calibrated distribution.
 * @example
 * ```ts ignore
 * import { decideWithPolicy } from "./policy_apply.ts";
 * decideWithPolicy(policy, "email", { true: 0.97, false: 0.03 }).action; // "true" above the bar
 * ```
 */
export function decideWithPolicy(
  policy: Policy,
  lane: string,
  predicted: Readonly<Record<string, number>>,
): PolicyDecision {
  const calibrated = calibrate(policy, predicted, lane);
  if (policy.objective === "cost") {
    const costs = policy.costs ?? {};
    let best = ESCALATE;
    let bestCost = Infinity;
    for (const action of [...policy.options, ESCALATE]) {
      let expected = 0;
      for (const gold of policy.options) {
        expected += (calibrated[gold] ?? 0) * (costs[gold]?.[action] ?? 0);
      }
      if (expected < bestCost) [best, bestCost] = [action, expected];
    }
    return { action: best, calibrated };
  }
  const bar = policy.lanes[lane];
  if (bar === undefined || !bar.certified || bar.threshold === null) {
    return { action: ESCALATE, calibrated };
  }
  if (policy.objective === "false-pass") {
    return { action: (calibrated.true ?? 0) >= bar.threshold ? "true" : "false", calibrated };
  }
  let top: string | null = null;
  let topP = -1;
  for (const option of policy.options) {
    const p = calibrated[option] ?? 0;
    if (p > topP) [top, topP] = [option, p];
  }
  return { action: top !== null && topP >= bar.threshold ? top : ESCALATE, calibrated };
}

/**
 * The expected cost of each action under a distribution, and the realised cost of an action.
 *
 * @param costs The cost matrix (gold option → action → cost).
 * @param options The question's options.
 * @param distribution The (calibrated) distribution.
 * @param action The action taken.
 * @returns The expected cost of `action`.
 */
export function expectedCost(
  costs: Record<string, Record<string, number>>,
  options: readonly string[],
  distribution: Readonly<Record<string, number>>,
  action: string,
): number {
  let expected = 0;
  for (const gold of options) expected += (distribution[gold] ?? 0) * (costs[gold]?.[action] ?? 0);
  return expected;
}
