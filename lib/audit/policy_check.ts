/**
 * Re-checking a policy on fresh labelled cases (what `deno task gate --policy` does after asking):
 * per lane, the rate the policy bounds — false passes among gold "no" cases, or wrong answers
 * among answered cases — with its one-sided 95% exact lower bound. A lane whose lower bound
 * exceeds α shows, at 95% confidence, that the policy no longer holds there.
 *
 * @module
 */
import { clopperPearsonUpper } from "./binomial.ts";
import { clopperPearsonLower } from "./ltt.ts";
import type { Policy } from "./policy_schema.ts";

/** One gate verdict with its label, as the check reads it. */
export interface PolicyCheckInput {
  /** The case's lane. */
  lane: string;
  /**
   * The verdict: `pass`, `fail`, `escalate` or `undecided` (and, for a question of more than two
   * options, `answer`).
   */
  verdict: string;
  /** The gold label (true: yes), or null when unlabelled. */
  label: boolean | null;
  /**
   * Whether the answer is the gold option (a question of more than two options under
   * `selective-risk`); without it, a `pass` is right when the label is yes.
   * @default undefined
   */
  correct?: boolean | undefined;
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
  /** One-sided 95% exact upper bound on the rate, null without trials. */
  upper95: number | null;
  /** False when the lower bound exceeds α: the policy no longer holds on this lane. */
  holds: boolean;
}

/** A lane's counts, fed one verdict at a time. */
interface LaneCounts {
  labelled: number;
  events: number;
  trials: number;
  verdicts: Record<string, number>;
}

/**
 * Re-checks a policy per lane, fed one verdict at a time (in memory that does not grow with the
 * number of verdicts): what {@linkcode checkPolicy} computes over a list, and what a run with
 * `bench --policy` computes as its answers arrive.
 */
export class PolicyChecker {
  readonly #policy: Pick<Policy, "objective" | "alpha">;
  readonly #lanes = new Map<string, LaneCounts>();

  /**
   * A checker with no verdict yet.
   *
   * @param policy The policy applied.
   */
  constructor(policy: Pick<Policy, "objective" | "alpha">) {
    this.#policy = policy;
  }

  /**
   * Counts one verdict (every verdict is counted by lane; the labelled, decided ones feed the
   * rate).
   *
   * @param r The verdict with its label.
   */
  add(r: PolicyCheckInput): void {
    let lane = this.#lanes.get(r.lane);
    if (!lane) {
      this.#lanes.set(r.lane, lane = { labelled: 0, events: 0, trials: 0, verdicts: {} });
    }
    lane.verdicts[r.verdict] = (lane.verdicts[r.verdict] ?? 0) + 1;
    if (r.label === null || r.verdict === "undecided") return;
    lane.labelled++;
    const decided = r.verdict === "pass" || r.verdict === "fail" || r.verdict === "answer";
    if (this.#policy.objective === "false-pass") {
      if (r.label === false && decided) {
        lane.trials++;
        if (r.verdict === "pass") lane.events++;
      }
    } else if (decided) {
      lane.trials++;
      const wrong = r.correct !== undefined ? !r.correct : (r.verdict === "pass") !== r.label;
      if (wrong) lane.events++;
    }
  }

  /**
   * Verdict counts of a lane (`pass`, `fail`, `answer`, `escalate`, `undecided`), empty for a
   * lane not seen.
   *
   * @param lane The lane.
   * @returns Verdict → count.
   */
  verdicts(lane: string): Readonly<Record<string, number>> {
    return this.#lanes.get(lane)?.verdicts ?? {};
  }

  /**
   * The re-check per lane.
   *
   * @param all Include lanes without a labelled verdict (default: only those with one).
   * @returns One row per lane, sorted by lane.
   */
  lanes(all = false): PolicyCheckLane[] {
    return [...this.#lanes.keys()].sort().flatMap((lane) => {
      const { labelled, events, trials } = this.#lanes.get(lane) as LaneCounts;
      if (!all && labelled === 0) return [];
      const lower95 = trials ? clopperPearsonLower(events, trials) : null;
      return [{
        lane,
        labelled,
        events,
        trials,
        rate: trials ? events / trials : null,
        lower95,
        upper95: trials ? clopperPearsonUpper(events, trials) : null,
        holds: this.#policy.objective === "cost" || lower95 === null ||
          lower95 <= this.#policy.alpha,
      }];
    });
  }
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
  const checker = new PolicyChecker(policy);
  for (const r of records) checker.add(r);
  return checker.lanes();
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
