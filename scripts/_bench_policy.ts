/**
 * Part of `deno task bench`: `--policy FILE` — reading a decision policy, refusing one chosen for
 * another question (before any request), and, after the run, naming the lanes where it no longer
 * holds.
 *
 * @module
 */
import { checkRunPolicy, PolicyRunSink, readPolicy } from "../lib/audit/mod.ts";
import { type OptionSpec, UsageError } from "../lib/cli/args.ts";
import type { RunJson } from "../lib/record/mod.ts";
import { type CiCheck, policyChecks } from "../lib/report/mod.ts";
import type { Workflow } from "../lib/workflow/mod.ts";

/** The `--policy` flag of bench. */
export const POLICY_OPTION: Record<string, OptionSpec> = {
  policy: {
    type: "string",
    value: "FILE",
    help:
      "apply a decision policy (deno task policy) to the answers: per lane its bar, the\nverdicts and, with labels, whether it still holds (exit 1 when it no longer does);\nnothing sent changes",
  },
};

/**
 * Reads `--policy FILE` (or, resuming, the policy the run recorded) and checks it fits the
 * workflow, before any request.
 *
 * @param value The flag's value.
 * @param workflow The workflow.
 * @param recorded The resumed run's record, if any.
 * @returns The sink applying it, or undefined without a policy.
 * @throws {UsageError} When the file is missing or invalid, the workflow compares several
 *   endpoints, or the policy's question is not the workflow's.
 */
export async function benchPolicy(
  value: unknown,
  workflow: Workflow,
  recorded: RunJson | undefined,
): Promise<PolicyRunSink | undefined> {
  const file = typeof value === "string" ? value : recorded?.policy?.file;
  if (file === undefined) return undefined;
  if (file === "") throw new UsageError("Cannot use --policy: give the policy file's path");
  if ((workflow.endpoints?.length ?? 0) > 1) {
    throw new UsageError(
      "Cannot use --policy with a workflow of several endpoints: it decides one model's answers; run a workflow naming one endpoint",
    );
  }
  try {
    const policy = await readPolicy(file);
    checkRunPolicy(policy, workflow);
    return new PolicyRunSink(policy);
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}

/**
 * Says, on stderr, each lane where the run's policy no longer holds.
 *
 * @param run The final run record.
 * @param json Also print the policy as one JSON event on stdout.
 * @returns The lanes where it no longer holds.
 */
export function policyBroken(run: RunJson, json: boolean): string[] {
  const policy = run.policy;
  if (policy === undefined) return [];
  const broken = policy.lanes.filter((l) => l.holds === false).map((l) => l.lane);
  if (json) console.log(JSON.stringify({ event: "policy", policy, broken }));
  for (const lane of broken) {
    console.error(
      `decibench: the policy no longer holds on lane ${lane}: its one-sided 95% lower bound on the rate exceeds α = ${policy.alpha}; choose a new policy on fresh labels (deno task policy)`,
    );
  }
  return broken;
}

/**
 * The run's policy lanes as CI checks (`--junit`, `--github`), none without a policy.
 *
 * @param run The final run record.
 * @returns One check per lane.
 */
export function runPolicyChecks(run: RunJson): CiCheck[] {
  return run.policy === undefined ? [] : policyChecks(run.policy);
}
