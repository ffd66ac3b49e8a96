/**
 * Re-checking a policy on fresh labelled cases (what `deno task gate --policy` does after asking):
 * per lane, the rate the policy bounds — false passes among gold "no" cases, or wrong answers
 * among answered cases — with its one-sided 95% exact lower bound. A lane whose lower bound
 * exceeds α shows, at 95% confidence, that the policy no longer holds there.
 *
 * @module
 */
import { clopperPearsonLower } from "./ltt.ts";
import type { Policy } from "./policy_schema.ts";

/** One gate verdict with its label, as the check reads it. */
export interface PolicyCheckInput {
  /** The case's lane. */
  lane: string;
  /** The verdict: `pass`, `fail`, `escalate` or `undecided`. */
  verdict: string;
  /** The gold label (true: yes), or null when unlabelled. */
  label: boolean | null;
}

/** One lane's re-check. */
export interface PolicyCheckLane {
  /** The lane. */
  lane: string;
  /** Labelled cases of the lane with a verdict (escalated ones included). */
  labelled: number;
  /** Events: false passes (`false-pass`) or wrong answers (`selective-risk`). */
  events: number;
  /** Trials: gold "no" cases passed or failed, or answered (passed or failed) cases. */
  trials: number;
  /** events ÷ trials, null without trials. */
  rate: number | null;
  /** One-sided 95% exact lower bound on the rate, null without trials. */
  lower95: number | null;
  /** False when the lower bound exceeds α: the policy no longer holds on this lane. */
  holds: boolean;
}

/**
 * Re-checks a policy per lane on labelled gate verdicts (unlabelled and undecided cases are left
 * out). The `cost` objective carries no guarantee and is not re-checked (every lane holds).
 *
 * @param policy The policy applied.
 * @param records The verdicts with their labels.
 * @returns One row per lane with labelled cases, sorted by lane.
 * @example
 * ```ts ignore
 * import { checkPolicy } from "./policy_check.ts";
 * checkPolicy(policy, [{ lane: "email", verdict: "pass", label: false }]);
 * ```
 */
export function checkPolicy(
  policy: Pick<Policy, "objective" | "alpha">,
  records: Iterable<PolicyCheckInput>,
): PolicyCheckLane[] {
  const lanes = new Map<string, { labelled: number; events: number; trials: number }>();
  for (const r of records) {
    if (r.label === null || r.verdict === "undecided") continue;
    let lane = lanes.get(r.lane);
    if (!lane) lanes.set(r.lane, lane = { labelled: 0, events: 0, trials: 0 });
    lane.labelled++;
    if (policy.objective === "false-pass") {
      if (r.label === false && (r.verdict === "pass" || r.verdict === "fail")) {
        lane.trials++;
        if (r.verdict === "pass") lane.events++;
      }
    } else if (r.verdict === "pass" || r.verdict === "fail") {
      lane.trials++;
      if ((r.verdict === "pass") !== r.label) lane.events++;
    }
  }
  return [...lanes.keys()].sort().map((lane) => {
    const { labelled, events, trials } = lanes.get(lane) as {
      labelled: number;
      events: number;
      trials: number;
    };
    const lower95 = trials ? clopperPearsonLower(events, trials) : null;
    return {
      lane,
      labelled,
      events,
      trials,
      rate: trials ? events / trials : null,
      lower95,
      holds: policy.objective === "cost" || lower95 === null || lower95 <= policy.alpha,
    };
  });
}

/**
 * Checks that a workflow's question is the one a policy was chosen for: the same type, and —
 * when both are known — the same definition (instructions, criteria or levels).
 *
 * @param policy The policy.
 * @param question The workflow's question name.
 * @param definition The workflow's question as asked, or null when not known before loading.
 * @param file The policy file, for messages.
 * @throws {TypeError} When the question, its type or its definition differs.
 */
export function checkPolicyQuestion(
  policy: Pick<Policy, "question" | "type" | "definition">,
  question: string,
  definition: Record<string, unknown> | null,
  file: string,
): void {
  if (policy.question !== question) {
    throw new TypeError(
      `Cannot apply policy "${file}": it decides question "${policy.question}", not "${question}"; choose a policy for "${question}" with deno task policy`,
    );
  }
  if (definition === null) return;
  if (definition.type !== policy.type) {
    throw new TypeError(
      `Cannot apply policy "${file}": question "${question}" is a ${
        String(definition.type)
      } question here and a ${policy.type} question in the policy`,
    );
  }
  if (policy.definition !== null && canonical(policy.definition) !== canonical(definition)) {
    throw new TypeError(
      `Cannot apply policy "${file}": question "${question}" is defined differently here (${
        canonical(definition)
      }) than in the run the policy was chosen on (${
        canonical(policy.definition)
      }); a policy holds only for the question it was chosen for`,
    );
  }
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const record = value as Record<string, unknown>;
  return `{${
    Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) =>
      `${JSON.stringify(k)}:${canonical(record[k])}`
    ).join(",")
  }}`;
}
