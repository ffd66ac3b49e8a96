/**
 * Thresholds against a baseline run (`{ metric, baseline: "runs/<id>", margin }`): checked before
 * any request (the baseline must have asked the same question set and questions), and evaluated
 * when the run ends on the decisions both runs share, with the paired bootstrap (the same Poisson
 * weights for a case in both runs).
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import { metricByName, MetricsAccumulator, pairedMetricDifference } from "../metrics/mod.ts";
import { join } from "node:path";
import {
  type DecisionRecord,
  type OpenedRun,
  openRun,
  readDecisionLines,
  type ThresholdResult,
} from "../record/mod.ts";
import { WorkflowError } from "./load.ts";
import type { ThresholdSpec, Workflow } from "./schemas.ts";
import { thresholdDecisions } from "./thresholds.ts";

/** The question set a run asked, as compared with a baseline's. */
function questionSetOf(
  info: Pick<DatasetInfo, "dataset" | "revision" | "questionSet">,
): string {
  const set = info.questionSet;
  const what = set === undefined
    ? ["typed-decisions", "card protocol"]
    : set.kind === "file"
    ? ["file", set.sha256, set.definitions_sha256]
    : ["typed-decisions", ...set.questions];
  return JSON.stringify([info.dataset, info.revision, ...what]);
}

/** What differs between this run's question set and the baseline's, in words, or null. */
function difference(
  info: Pick<DatasetInfo, "dataset" | "revision" | "questionSet">,
  baseline: OpenedRun,
): string | null {
  const spec = baseline.run.spec;
  const theirs = {
    dataset: spec.dataset,
    revision: spec.revision,
    questionSet: spec.question_set,
  } as Pick<DatasetInfo, "dataset" | "revision" | "questionSet">;
  if (questionSetOf(info) === questionSetOf(theirs)) return null;
  if (info.dataset !== spec.dataset || info.revision !== spec.revision) {
    return `it ran on "${spec.dataset}@${
      spec.revision.slice(0, 12)
    }", this run on "${info.dataset}@${info.revision.slice(0, 12)}"`;
  }
  const mine = info.questionSet;
  const other = spec.question_set;
  if (mine?.kind === "file" && other?.kind === "file" && mine.sha256 === other.sha256) {
    return `its question definitions differ (sha256 ${
      other.definitions_sha256.slice(0, 12)
    }, here ${mine.definitions_sha256.slice(0, 12)})`;
  }
  const names = (s: typeof mine) =>
    s === undefined
      ? "every question"
      : s.kind === "file"
      ? Object.keys(s.questions).join(", ")
      : s.questions.join(", ");
  return `it asked other questions (${names(other)}; this run: ${names(mine)})`;
}

/**
 * Refuses thresholds against a baseline that cannot be compared, before any request: a baseline
 * run directory that cannot be read, or one made on another question set or other questions.
 *
 * @param specs The workflow's thresholds.
 * @param info The question set this run asks (the loaded dataset's `info`).
 * @param file The workflow file, for the message.
 * @throws {WorkflowError} Naming the threshold, the baseline and what differs.
 */
export async function checkBaselines(
  specs: readonly ThresholdSpec[],
  info: Pick<DatasetInfo, "dataset" | "revision" | "questionSet">,
  file: string,
): Promise<void> {
  for (const [i, t] of specs.entries()) {
    if (t.baseline === undefined) continue;
    const where = `Cannot load workflow "${file}": field "thresholds.${i}.baseline"`;
    let baseline: OpenedRun;
    try {
      baseline = await openRun(t.baseline);
    } catch (error) {
      throw new WorkflowError(
        `${where}: cannot read the run "${t.baseline}" (${
          (error as Error).message
        }); give the directory of a finished run, e.g. runs/<id>`,
      );
    }
    const differs = difference(info, baseline);
    if (differs !== null) {
      throw new WorkflowError(
        `${where}: the baseline "${t.baseline}" cannot be compared with this run: ${differs}; give a baseline run made on the same question set and questions`,
      );
    }
  }
}

function key(d: Pick<DecisionRecord, "case" | "question">): string {
  return `${d.case}\u0000${d.question}`;
}

/**
 * Streams a run's decisions covered by a threshold, labelled, and (when `keep` is given) among
 * `keep`, to an accumulator, a case at a time (a case's lines are consecutive in
 * `decisions.jsonl`).
 */
async function feed(
  decisions: AsyncIterable<DecisionRecord>,
  spec: ThresholdSpec,
  keep: (d: DecisionRecord) => boolean,
  acc: MetricsAccumulator,
): Promise<void> {
  let group: DecisionRecord[] = [];
  const flush = () => {
    if (group.length > 0) acc.addCase(group[0]?.case ?? "", group);
    group = [];
  };
  for await (const d of decisions) {
    if (d.gold === null || thresholdDecisions(spec, [d]).length === 0 || !keep(d)) continue;
    if (group.length > 0 && group[0]?.case !== d.case) flush();
    group.push(d);
  }
  flush();
}

/** Options of {@linkcode withBaselines}. */
export interface WithBaselinesOptions {
  /** The bootstrap seed (the workflow's `seed`). @default 0 */
  seed?: number | undefined;
  /** Bootstrap replicates. @default 1000 */
  resamples?: number | undefined;
}

/**
 * Fills in the thresholds against a baseline: each compares this run's decisions with the
 * baseline's on those both hold (same case and question, labelled, of the threshold's lane and
 * question), by the paired bootstrap of the metric's difference (this − baseline; baseline −
 * this for a lower-is-better metric). It passes when the interval's lower end is ≥ −margin.
 * Other thresholds are returned as they are.
 *
 * @param results The run's threshold results (placeholders for those against a baseline).
 * @param specs The workflow's thresholds, in the same order.
 * @param run This run's decisions (all written).
 * @param options Seed and replicates.
 * @returns The results with the baseline comparisons.
 * @throws {Error} When a baseline run cannot be read.
 */
export async function withBaselines(
  results: readonly ThresholdResult[],
  specs: readonly ThresholdSpec[],
  run: Pick<OpenedRun, "decisions">,
  options: WithBaselinesOptions = {},
): Promise<ThresholdResult[]> {
  const out = [...results];
  for (const [i, spec] of specs.entries()) {
    if (spec.baseline === undefined) continue;
    const metric = metricByName(spec.metric);
    const placeholder = out[i];
    if (metric === undefined || placeholder === undefined) continue;
    const baseline = await openRun(spec.baseline);
    const make = () =>
      new MetricsAccumulator({
        seed: options.seed ?? 0,
        ...(options.resamples !== undefined ? { resamples: options.resamples } : {}),
        metrics: [metric],
        intervalMetrics: [metric],
        breakdowns: [],
      });
    const theirs = new Set<string>();
    for await (const d of baseline.decisions()) {
      if (d.gold !== null && thresholdDecisions(spec, [d]).length > 0) theirs.add(key(d));
    }
    const shared = new Set<string>();
    const current = make();
    await feed(run.decisions(), spec, (d) => {
      if (!theirs.has(key(d))) return false;
      shared.add(key(d));
      return true;
    }, current);
    theirs.clear();
    const before = make();
    await feed(baseline.decisions(), spec, (d) => shared.has(key(d)), before);
    const { estimate, interval } = shared.size > 0
      ? pairedMetricDifference(current, before, metric)
      : { estimate: null, interval: null };
    const value = interval === null ? null : interval[0];
    const limit = placeholder.limit;
    out[i] = {
      ...placeholder,
      value,
      estimate,
      interval,
      shared: shared.size,
      pass: value !== null && value >= limit,
    };
  }
  return out;
}

/**
 * A finished run's thresholds with those against a baseline filled in from its directory's
 * `decisions.jsonl` (streamed); the results as they are when no threshold names a baseline.
 *
 * @param results The run's threshold results.
 * @param workflow The workflow (its thresholds and seed).
 * @param dir The run directory.
 * @returns The results.
 * @throws {Error} When a baseline run cannot be read.
 */
export async function baselineThresholds(
  results: readonly ThresholdResult[],
  workflow: Pick<Workflow, "thresholds" | "seed">,
  dir: string,
): Promise<ThresholdResult[]> {
  if (!workflow.thresholds.some((t) => t.baseline !== undefined)) return [...results];
  const path = join(dir, "decisions.jsonl");
  const decisions = async function* (): AsyncGenerator<DecisionRecord> {
    for await (const { record } of readDecisionLines(path)) yield record;
  };
  return await withBaselines(results, workflow.thresholds, { decisions }, { seed: workflow.seed });
}
