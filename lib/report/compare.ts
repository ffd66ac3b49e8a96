/**
 * The paired comparison of two recorded runs on the decisions both share: each run's accuracy,
 * KL, Brier and ECE on those decisions, the accuracy difference with a paired bootstrap interval,
 * McNemar counts with the exact p-value, and rows per workflow and per question.
 *
 * @module
 */
import {
  MetricsAccumulator,
  type PairedComparison,
  PairedTally,
  type Summary,
} from "../metrics/mod.ts";
import type { DecisionRecord, OpenedRun, RunSpec } from "../record/mod.ts";

/** One side of a comparison. */
export interface ComparedRun {
  /** Run id. */
  id: string;
  /** Run directory. */
  dir: string;
  /** Run status. */
  status: string;
  /** What ran. */
  spec: RunSpec;
  /** Model the server said answered, or null. */
  modelReported: string | null;
  /** Summary over the shared decisions only. */
  summary: Summary;
}

/** Two runs compared. */
export interface RunComparison {
  /** Run A (the baseline). */
  a: ComparedRun;
  /** Run B. */
  b: ComparedRun;
  /** Dataset id both runs used. */
  dataset: string;
  /** Dataset revision both runs used. */
  revision: string;
  /** Configuration fields that differ between the runs (what is being compared). */
  differences: { field: string; a: string; b: string }[];
  /** The paired comparison (difference is B − A). */
  paired: PairedComparison;
}

/** Options for `compareRuns`. */
export interface CompareRunsOptions {
  /** Bootstrap seed. @default 0 */
  seed?: number | undefined;
  /** Bootstrap resamples. @default 1000 */
  resamples?: number | undefined;
}

/**
 * Summarizes a run's shared decisions, streamed once more: each case's run of consecutive lines
 * goes to the accumulator (whose per-case bootstrap weights do not depend on order).
 */
async function sharedSummary(
  run: OpenedRun,
  tally: PairedTally,
  options: CompareRunsOptions,
): Promise<Summary> {
  const acc = new MetricsAccumulator({ seed: options.seed, resamples: options.resamples });
  let group: DecisionRecord[] = [];
  for await (const r of run.decisions()) {
    if (r.gold === null || !tally.isShared(r)) continue;
    if (group.length > 0 && group[0]?.case !== r.case) {
      acc.addCase(group[0]?.case ?? "", group);
      group = [];
    }
    group.push(r);
  }
  if (group.length > 0) acc.addCase(group[0]?.case ?? "", group);
  return acc.summary();
}

/**
 * Compares run B with run A on the decisions both hold (matched by case and question). Each run's
 * decisions are streamed from its `decisions.jsonl`, twice: what is held is one number per labelled
 * decision (keyed by case and question), a few counts per case and question, and the metric
 * accumulators, never a run's records.
 *
 * @param a Run A, the baseline (from `openRun` or `loadRun`).
 * @param b Run B.
 * @param options Bootstrap seed and resamples.
 * @returns Both runs' metrics on the shared decisions, the paired comparison and what differs.
 * @throws {RangeError} When the runs used different datasets or dataset revisions (two files of
 *   a question set with the same question definitions are compared by case id), or share no
 *   decision.
 * @example
 * ```ts ignore
 * import { openRun } from "../record/mod.ts";
 * import { compareRuns } from "./compare.ts";
 * const c = await compareRuns(await openRun("runs/a"), await openRun("runs/b"));
 * console.log(c.paired.difference, c.paired.interval, c.paired.mcnemar);
 * ```
 */
export async function compareRuns(
  a: OpenedRun,
  b: OpenedRun,
  options: CompareRunsOptions = {},
): Promise<RunComparison> {
  const sa = a.run.spec;
  const sb = b.run.spec;
  const fa = sa.question_set?.kind === "file" ? sa.question_set : undefined;
  const fb = sb.question_set?.kind === "file" ? sb.question_set : undefined;
  // Two files of one set (its CSV and its Parquet copy) are different files, not a changed one:
  // with the same question definitions they are compared by case id, and the files are named.
  const otherFile = fa !== undefined && fb !== undefined && fa.sha256 !== fb.sha256 &&
    fa.path !== fb.path;
  const fileName = (f: NonNullable<typeof fa>): string =>
    `"${f.path}" (${f.format}, sha256 ${f.sha256.slice(0, 12)}, ${f.rows} rows)`;
  if (fa && fb && (fa.sha256 !== fb.sha256 || fa.definitions_sha256 !== fb.definitions_sha256)) {
    const definitions = fa.definitions_sha256 !== fb.definitions_sha256;
    const what = otherFile
      ? `they used different files, ${fileName(fa)} in "${a.dir}" and ${
        fileName(fb)
      } in "${b.dir}"${definitions ? ", with different question definitions" : ""}`
      : fa.sha256 !== fb.sha256
      ? `question set file "${fb.path}" changed (sha256 ${
        fa.sha256.slice(0, 12)
      }, ${fa.rows} rows in "${a.dir}"; ${fb.sha256.slice(0, 12)}, ${fb.rows} rows in "${b.dir}")`
      : `the question definitions of "${fb.path}" differ (sha256 ${
        fa.definitions_sha256.slice(0, 12)
      } and ${fb.definitions_sha256.slice(0, 12)})`;
    if (!otherFile || definitions) {
      throw new RangeError(
        `Cannot compare runs "${a.dir}" and "${b.dir}": ${what}; compare runs made on the same file and questions`,
      );
    }
  }
  if (!otherFile && (sa.dataset !== sb.dataset || sa.revision !== sb.revision)) {
    throw new RangeError(
      `Cannot compare runs "${a.dir}" and "${b.dir}": they used different dataset revisions ("${sa.dataset}@${
        sa.revision.slice(0, 12)
      }" and "${sb.dataset}@${
        sb.revision.slice(0, 12)
      }"); compare runs made on the same dataset revision`,
    );
  }
  // Rows in the order of run A sorted by case id: the same whatever order each run's decisions
  // were answered in. Unlabelled decisions (gold null) are never scored, so they take no part.
  const tally = new PairedTally({ ...options, caseOrder: true });
  for await (const r of a.decisions()) if (r.gold !== null) tally.addA(r);
  for await (const r of b.decisions()) if (r.gold !== null) tally.addB(r);
  if (tally.shared === 0) {
    throw new RangeError(
      `Cannot compare runs "${a.dir}" and "${b.dir}": they share no decision (no case and question in common)`,
    );
  }
  const fields: [string, (s: RunSpec) => string][] = [
    ["endpoint", (s) => s.endpoint],
    ["engine", (s) => s.engine],
    ["model", (s) => s.model],
    ["state encoding", (s) => s.state_encoding],
    ["workflow", (s) => s.workflow],
    ["cases", (s) => String(s.cases)],
    ["fingerprint", (s) => s.fingerprint],
  ];
  const differences = fields
    .map(([field, get]) => ({ field, a: get(sa), b: get(sb) }))
    .filter((d) => d.a !== d.b);
  if (otherFile && fa && fb) {
    const file = (f: typeof fa): string =>
      `${f.path} (${f.format}, sha256 ${f.sha256.slice(0, 12)})`;
    differences.unshift({ field: "question set file", a: file(fa), b: file(fb) });
  }
  const side = async (run: OpenedRun): Promise<ComparedRun> => ({
    id: run.run.id,
    dir: run.dir,
    status: run.run.status,
    spec: run.run.spec,
    modelReported: run.run.model_reported,
    summary: await sharedSummary(run, tally, options),
  });
  return {
    a: await side(a),
    b: await side(b),
    dataset: sa.dataset,
    revision: sa.revision,
    differences,
    paired: tally.result(),
  };
}
