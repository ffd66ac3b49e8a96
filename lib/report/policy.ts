/**
 * The policy section of a run's reports (`bench --policy`): which policy was applied, and per lane
 * its bar, the verdicts and — with labels — the realised rate with its one-sided 95% exact bounds
 * and whether the policy still holds, as `run.json`'s `policy` records them. The terminal,
 * Markdown and HTML reports and the view's run page render this one model.
 *
 * @module
 */
import type { RunPolicy, RunPolicyLane } from "../record/mod.ts";
import type { TableData } from "./tables.ts";

/** The policy section: a sentence naming the policy, its lanes' table, and a closing note. */
export interface PolicySection {
  /** The policy in one sentence: file, sha256, question, objective, α, δ, calibration, source. */
  intro: string;
  /** One row per lane. */
  table: TableData;
  /** What the rate is and when the policy no longer holds. */
  note: string;
  /** Lanes where the policy no longer holds. */
  broken: string[];
}

function pct(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

/**
 * What a lane's check says: `holds`, `no longer holds`, or why it was not checked.
 *
 * @param policy The run's policy.
 * @param lane The lane.
 * @returns E.g. `holds`, `no longer holds`, `not checked: not certified (needs 86)`.
 */
export function policyLaneVerdict(policy: RunPolicy, lane: RunPolicyLane): string {
  if (lane.holds === true) return "holds";
  if (lane.holds === false) return "no longer holds";
  if (policy.objective === "cost") return "not checked: the cost objective carries no guarantee";
  if (!lane.known) return "not checked: a lane the policy does not know (its cases escalate)";
  if (!lane.certified) {
    return `not checked: not certified${
      lane.neededSelectN === null ? "" : ` (needs ${lane.neededSelectN})`
    }, its cases escalate`;
  }
  if (lane.labelled === 0) return "not checked: no labelled case";
  return policy.objective === "false-pass"
    ? 'not checked: no labelled gold "no" case decided'
    : "not checked: no labelled case answered";
}

/**
 * The rate a policy bounds, in words.
 *
 * @param policy The run's policy.
 * @returns `false passes among gold "no"` or `wrong among answered`.
 */
export function policyRateName(policy: Pick<RunPolicy, "objective">): string {
  return policy.objective === "false-pass"
    ? 'false passes among gold "no"'
    : policy.objective === "selective-risk"
    ? "wrong among answered"
    : "no rate (cost)";
}

/**
 * The policy section of a run, or null when the run applied no policy.
 *
 * @param policy `run.json`'s `policy`.
 * @returns The sentence, the lanes' table and the note.
 */
export function policyData(policy: RunPolicy | undefined): PolicySection | null {
  if (policy === undefined) return null;
  const yesNo = policy.type === "noul";
  const header = [
    "lane",
    "bar",
    ...(yesNo ? ["pass", "fail"] : ["answered"]),
    "escalate",
    "undecided",
    "rate",
    "≥ (95%)",
    "≤ (95%)",
    "policy",
  ];
  const rows = policy.lanes.map((l) => [
    l.lane,
    l.threshold === null ? (policy.objective === "cost" ? "least cost" : "escalate") : String(
      l.threshold,
    ),
    ...(yesNo ? [String(l.verdicts.pass), String(l.verdicts.fail)] : [String(l.verdicts.answer)]),
    String(l.verdicts.escalate),
    String(l.verdicts.undecided),
    l.rate === null ? "n/a" : `${pct(l.rate)} (${l.events}/${l.trials})`,
    pct(l.lower95),
    pct(l.upper95),
    policyLaneVerdict(policy, l),
  ]);
  const intro = `${policy.file} (sha256 ${
    policy.sha256.slice(0, 12)
  }) for question ${policy.question}: objective ${policy.objective}, α ${policy.alpha}, δ ${policy.delta}, calibration ${policy.calibration}, chosen on run ${policy.source.run}. Applied to the answers after they arrived; nothing sent changed.`;
  const note = policy.objective === "cost"
    ? "The cost objective takes each case's action of least expected cost and carries no guarantee."
    : `The rate is ${
      policyRateName(policy)
    } on this run's labelled cases, with one-sided 95% exact (Clopper–Pearson) bounds; the policy no longer holds on a lane when the lower bound exceeds α = ${policy.alpha}.`;
  return {
    intro,
    table: { header, rows },
    note,
    broken: policy.lanes.filter((l) => l.holds === false).map((l) => l.lane),
  };
}
