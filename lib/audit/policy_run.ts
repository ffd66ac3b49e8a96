/**
 * A decision policy applied to a run's answers (`deno task bench --policy FILE`, or
 * `RunOptions.policy`): each answer to the policy's question gets the gate's verdict
 * (`decideWithPolicy`), counted per lane and — with labels — re-checked as the gate re-checks it
 * (`PolicyChecker`). Nothing sent changes; the result is `run.json`'s `policy`.
 *
 * @module
 */
import { wireQuestion } from "../dataset/mod.ts";
import { type AnsweredCase, type RunPolicy, type RunPolicySink, sha256Hex } from "../record/mod.ts";
import type { Workflow } from "../workflow/mod.ts";
import { decideWithPolicy, ESCALATE, type GatePolicy } from "./policy_apply.ts";
import { checkPolicyQuestion, PolicyChecker } from "./policy_check.ts";
import { parsePolicy } from "./policy_schema.ts";

/**
 * Reads a policy file (`deno task policy`'s `policy.json`) with its sha256.
 *
 * @param file The file.
 * @returns The policy, its file and the sha256 of its bytes.
 * @throws {TypeError} When the file is missing or a field is invalid.
 * @throws {SyntaxError} When it is not JSON.
 * @example
 * ```ts ignore
 * import { readPolicy } from "./policy_run.ts";
 * const policy = await readPolicy("urgent.policy.json");
 * ```
 */
export async function readPolicy(file: string): Promise<GatePolicy> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new TypeError(
        `Cannot read policy "${file}": file not found; write one with deno task policy`,
      );
    }
    throw error;
  }
  const policy = parsePolicy(new TextDecoder().decode(bytes), file);
  return { policy, file, sha256: await sha256Hex(bytes) };
}

/**
 * Refuses a policy that does not fit a workflow, before any request: a question the workflow does
 * not ask, or one defined differently (type, instructions, criteria or levels).
 *
 * @param policy The policy.
 * @param workflow The workflow.
 * @throws {TypeError} When the workflow's question differs from the policy's.
 */
export function checkRunPolicy(policy: GatePolicy, workflow: Workflow): void {
  const question = policy.policy.question;
  const questions = workflow.questions;
  if (questions !== undefined && questions[question] === undefined) {
    throw new TypeError(
      `Cannot apply policy "${policy.file}": it decides question "${question}", which workflow "${workflow.name}" does not ask (questions: ${
        Object.keys(questions).join(", ")
      }); choose a policy on a run of this workflow with deno task policy`,
    );
  }
  const written = questions?.[question];
  checkPolicyQuestion(
    policy.policy,
    question,
    written ? wireQuestion(written) as unknown as Record<string, unknown> : null,
    policy.file,
  );
}

/**
 * The `policy` section of a run (or a gate) from a policy and its per-lane re-check.
 *
 * @param policy The policy applied.
 * @param checker The verdicts counted.
 * @returns One row per lane with a verdict, sorted by lane.
 */
export function policySection(policy: GatePolicy, checker: PolicyChecker): RunPolicy {
  const p = policy.policy;
  return {
    file: policy.file,
    sha256: policy.sha256,
    question: p.question,
    type: p.type,
    objective: p.objective,
    alpha: p.alpha,
    delta: p.delta,
    calibration: p.calibration.method,
    source: { run: p.source.run, fingerprint: p.source.fingerprint },
    lanes: checker.lanes(true).map((l) => {
      const entry = p.lanes[l.lane];
      const certified = p.objective === "cost" ? entry !== undefined : entry?.certified === true;
      const v = checker.verdicts(l.lane);
      return {
        lane: l.lane,
        known: entry !== undefined,
        certified,
        threshold: certified ? entry?.threshold ?? null : null,
        neededSelectN: certified ? null : entry?.neededSelectN ?? null,
        verdicts: {
          pass: v.pass ?? 0,
          fail: v.fail ?? 0,
          answer: v.answer ?? 0,
          escalate: v.escalate ?? 0,
          undecided: v.undecided ?? 0,
        },
        labelled: l.labelled,
        events: l.events,
        trials: l.trials,
        rate: l.rate,
        lower95: l.lower95,
        upper95: l.upper95,
        holds: p.objective === "cost" || !certified || l.trials === 0 ? null : l.holds,
      };
    }),
  };
}

/** Applies a policy to a run's answers as they arrive (`RunOptions.policy`). */
export class PolicyRunSink implements RunPolicySink {
  readonly #policy: GatePolicy;
  readonly #checker: PolicyChecker;

  /**
   * A sink with no answer yet.
   *
   * @param policy The policy, read with {@linkcode readPolicy}.
   */
  constructor(policy: GatePolicy) {
    this.#policy = policy;
    this.#checker = new PolicyChecker(policy.policy);
  }

  /**
   * Gives the case's answer to the policy's question its verdict (other questions are left alone).
   *
   * @param answered One answered case.
   */
  case(answered: AnsweredCase): void {
    const p = this.#policy.policy;
    for (const d of answered.records) {
      if (d.question !== p.question) continue;
      const lane = d.workflow;
      const label = d.gold === null ? null : p.type === "noul" ? d.gold === "true" : true;
      if (d.predicted === null || d.error !== null) {
        this.#checker.add({ lane, verdict: "undecided", label });
        continue;
      }
      const { action } = decideWithPolicy(p, lane, d.predicted);
      const verdict = action === ESCALATE
        ? "escalate"
        : p.type === "noul"
        ? action === "true" ? "pass" : "fail"
        : "answer";
      this.#checker.add({
        lane,
        verdict,
        label,
        ...(d.gold !== null && verdict !== "escalate" ? { correct: action === d.gold } : {}),
      });
    }
  }

  /**
   * The policy's result over the cases fed so far.
   *
   * @returns The run's `policy` section.
   */
  section(): RunPolicy {
    return policySection(this.#policy, this.#checker);
  }
}

/**
 * A sink applying a policy to a run of a workflow (`RunOptions.policy`), after checking that the
 * policy's question is the workflow's.
 *
 * @param policy The policy, read with {@linkcode readPolicy}.
 * @param workflow The workflow the run asks.
 * @returns The sink; the run records its section as `run.json`'s `policy`.
 * @throws {TypeError} When the workflow's question differs from the policy's.
 * @example
 * ```ts ignore
 * import { policyRunSink, readPolicy } from "./policy_run.ts";
 * const policy = policyRunSink(await readPolicy("urgent.policy.json"), workflow);
 * const result = await runBenchmark(workflow, { policy });
 * result.run.policy?.lanes; // per lane: bar, verdicts, realised rate, holds
 * ```
 */
export function policyRunSink(policy: GatePolicy, workflow: Workflow): PolicyRunSink {
  checkRunPolicy(policy, workflow);
  return new PolicyRunSink(policy);
}
