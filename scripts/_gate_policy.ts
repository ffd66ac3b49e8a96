/**
 * Part of `deno task gate`: `--policy FILE` — reading the policy, refusing one that does not fit
 * the workflow's question (before any request), and re-checking it per lane on the labelled
 * verdicts afterwards.
 *
 * @module
 */
import {
  checkPolicyQuestion,
  type GatePolicy,
  type PolicyChecker,
  policySection,
  readPolicy,
} from "../lib/audit/mod.ts";
import { UsageError } from "../lib/cli/args.ts";
import { wireQuestion } from "../lib/dataset/mod.ts";
import { type CiCheck, policyChecks, table } from "../lib/report/mod.ts";
import type { Workflow } from "../lib/workflow/mod.ts";

/**
 * Reads `--policy FILE`, refusing the flags it replaces.
 *
 * @param file The policy file.
 * @param values The parsed flags.
 * @returns The policy with its file and sha256.
 * @throws {UsageError} When the file is missing or invalid, or `--threshold`/`--calibrated` is
 *   given with it.
 */
export async function readGatePolicy(
  file: string,
  values: Record<string, unknown>,
): Promise<GatePolicy> {
  for (const flag of ["threshold", "calibrated"]) {
    if (values[flag] !== undefined && values[flag] !== false) {
      throw new UsageError(
        `Cannot use --${flag} with --policy: the policy sets each lane's bar`,
      );
    }
  }
  let read: GatePolicy;
  try {
    read = await readPolicy(file);
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
  const policy = read.policy;
  if (policy.type !== "noul") {
    throw new UsageError(
      `Cannot apply policy "${file}": it decides a ${policy.type} question; the gate asks a yes/no (noul) question`,
    );
  }
  return read;
}

/**
 * Refuses a policy chosen for another question (before any request).
 *
 * @param policy The policy.
 * @param workflow The workflow.
 * @param question The question asked.
 * @throws {UsageError} When the question, its type or its definition differs.
 */
export function checkGatePolicy(policy: GatePolicy, workflow: Workflow, question: string): void {
  const written = workflow.questions?.[question];
  try {
    checkPolicyQuestion(
      policy.policy,
      question,
      written ? wireQuestion(written) as unknown as Record<string, unknown> : null,
      policy.file,
    );
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Re-checks the policy on the labelled verdicts and prints the result.
 *
 * @param policy The policy applied.
 * @param checker The gate's verdicts, counted as gate.jsonl was read.
 * @param json Print one JSON event instead of a table.
 * @returns The lanes where the policy no longer holds.
 */
export function policyOutcome(
  policy: GatePolicy,
  checker: PolicyChecker,
  json: boolean,
): string[] {
  const lanes = checker.lanes();
  const broken = lanes.filter((l) => !l.holds).map((l) => l.lane);
  const what = policy.policy.objective === "false-pass"
    ? 'false passes among gold "no"'
    : "wrong among answered";
  if (json) {
    console.log(JSON.stringify({ event: "policy_check", lanes, broken }));
  } else if (lanes.length) {
    console.log(`\nPolicy re-check on the labelled cases (${what}; α ${policy.policy.alpha}):`);
    console.log(table(
      ["lane", "labelled", "rate", "≥ (95%)", "holds"],
      lanes.map((l) => [
        l.lane,
        String(l.labelled),
        l.rate === null ? "n/a" : `${(l.rate * 100).toFixed(1)}% (${l.events}/${l.trials})`,
        l.lower95 === null ? "n/a" : `${(l.lower95 * 100).toFixed(1)}%`,
        l.holds ? "yes" : "no",
      ]),
    ));
  }
  for (const lane of broken) {
    console.error(
      `decibench: the policy no longer holds on lane ${lane}: its one-sided 95% lower bound on the rate exceeds α = ${policy.policy.alpha}; choose a new policy on fresh labels (deno task policy)`,
    );
  }
  return broken;
}

/**
 * The policy's lanes as CI checks (`--junit`, `--github`): its result over the gate's verdicts, in
 * the shape `bench --policy` records, one check per lane.
 *
 * @param policy The policy applied.
 * @param checker The gate's verdicts, counted as gate.jsonl was read.
 * @returns One check per lane with a verdict.
 */
export function gatePolicyChecks(policy: GatePolicy, checker: PolicyChecker): CiCheck[] {
  return policyChecks(policySection(policy, checker));
}
