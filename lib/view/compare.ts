/**
 * Comparing two runs in the view: the paired comparison of `deno task compare` (reused from
 * lib/report, so the figures are the command's), whether two runs can be compared at all, and
 * the decisions that flipped between them.
 *
 * Two runs are compared only when they asked the same thing: the same dataset and revision and
 * the same questions (the parts of the fingerprint that say what was asked). The parts that say
 * who answered — endpoint, engine, model, state encoding — are what a comparison compares, so the
 * page lists them as the differences.
 *
 * @module
 */
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import { compareRuns, type RunComparison } from "../report/mod.ts";

/**
 * Says why two runs cannot be compared, or null when they can.
 *
 * @param a Run A.
 * @param b Run B.
 * @returns The reason, naming what differs, or null.
 */
export function incomparable(a: RunJson, b: RunJson): string | null {
  const sa = a.spec;
  const sb = b.spec;
  if (a.id === b.id) return `both sides are run "${a.id}"; pick two different runs`;
  if (sa.dataset !== sb.dataset || sa.revision !== sb.revision) {
    return `they used different datasets or revisions ("${sa.dataset}@${
      sa.revision.slice(0, 12)
    }" and "${sb.dataset}@${
      sb.revision.slice(0, 12)
    }"), so their fingerprints differ in what was asked; compare runs made on the same dataset revision`;
  }
  if (sa.split !== sb.split) {
    return `they ran different splits ("${sa.split}" and "${sb.split}")`;
  }
  if (sa.questions_sha256 !== sb.questions_sha256 && sa.cases === sb.cases) {
    return `they asked different questions (questions hash ${
      sa.questions_sha256.slice(0, 12)
    } and ${sb.questions_sha256.slice(0, 12)}), so their fingerprints differ in what was asked`;
  }
  return null;
}

/** A decision both runs hold whose correctness differs. */
export interface Flip {
  /** Case id. */
  case: string;
  /** Question name. */
  question: string;
  /** Workflow. */
  workflow: string;
  /** Which run got it right. */
  right: "a" | "b";
  /** Run A's decision. */
  a: DecisionRecord;
  /** Run B's decision. */
  b: DecisionRecord;
}

const key = (r: DecisionRecord) => `${r.case}\u0000${r.question}`;

/**
 * The decisions that flipped between two runs (right in one, wrong or failed in the other), in
 * run A's order.
 *
 * @param a Run A's decisions.
 * @param b Run B's decisions.
 * @returns The flips.
 */
export function flips(a: readonly DecisionRecord[], b: readonly DecisionRecord[]): Flip[] {
  const inB = new Map(b.map((r) => [key(r), r]));
  const out: Flip[] = [];
  for (const ra of a) {
    const rb = inB.get(key(ra));
    // An unlabelled decision (no gold) is neither right nor wrong: it cannot flip.
    if (!rb || ra.gold === null || rb.gold === null || ra.correct === rb.correct) continue;
    out.push({
      case: ra.case,
      question: ra.question,
      workflow: ra.workflow,
      right: ra.correct ? "a" : "b",
      a: ra,
      b: rb,
    });
  }
  return out;
}

/**
 * The paired comparison of two runs, as `deno task compare` computes it (seed 0 unless given).
 *
 * @param a Run A (the baseline) and its decisions.
 * @param b Run B and its decisions.
 * @param seed Bootstrap seed.
 * @returns The comparison.
 * @throws {RangeError} When the runs share no decision.
 */
export function pairedRuns(
  a: { run: RunJson; records: DecisionRecord[] },
  b: { run: RunJson; records: DecisionRecord[] },
  seed = 0,
): Promise<RunComparison> {
  const opened = (side: { run: RunJson; records: DecisionRecord[] }) => ({
    dir: side.run.id,
    run: side.run,
    decisions: async function* () {
      yield* side.records;
    },
  });
  return compareRuns(opened(a), opened(b), { seed });
}
