/**
 * The worker behind {@linkcode RunReportWorker}: it loads the HTML renderer (Observable Plot and
 * linkedom) and sums the summary's and breakdowns' bootstraps while the run's requests go on,
 * reads the summary's intervals and the breakdowns off them once the last answer is in, and
 * writes `report.html`.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import { bootstrapIntervals, METRIC_REGISTRY, type SampleMetric } from "../metrics/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import { writeAtomic } from "../record/mod.ts";
import {
  buildReport,
  ReportAccumulator,
  type ReportBreakdowns,
  reportBreakdowns,
} from "./model.ts";
import { calibrationTables } from "./calibration_tables.ts";
import {
  type RunReportAnswer,
  type RunReportJob,
  SHARED_FED,
  SHARED_SENT,
  SHARED_WARMED,
  WARMED_INTERVALS,
  WARMED_REPORT,
} from "./run_worker.ts";
import { serveJobs } from "../job_worker.ts";

// Started at once: the charts' libraries take ~100 ms to load, and the run leaves time for it.
const html = import("./html.ts");
// The renderer once loaded, for the warm-up (a failed import is reported by the job that needs it).
let renderer: typeof import("./html.ts") | null = null;
html.then((module) => renderer = module, () => {});

// The decisions of the last intervals job, for the breakdowns and report.html (null when that job
// could not put them together).
let records: readonly DecisionRecord[] | null = null;
let breakdowns: ReportBreakdowns | null = null;
// The bootstraps of the planned run's summary and breakdowns, summed as its answers come in.
let fed: { run: string; sums: ReportAccumulator } | null = null;
// The decisions handed over while the run went on, per case.
let handed: { run: string; cases: Map<string, DecisionRecord[]> } = { run: "", cases: new Map() };
// The planned run: its number of cases, its seed, when the run sent its plan (ms since the
// epoch), and the memory it shares with the run's thread.
let planned: {
  run: string;
  cases: number;
  seed: number;
  since: number;
  shared: Int32Array;
  warmIntervals: boolean;
} | null = null;
// The planned run's record and dataset info, until the worker has warmed up on it (`warmUp`).
let warming: { run: RunJson; info: DatasetInfo; seed: number } | null = null;

/** Cases handed over before the worker warms up; it warms up on those. */
const WARM_CASES = 20;

/**
 * Draws a report of the run's first answered cases once they and the renderer are in, and
 * discards it, so that report.html is drawn by compiled code at the end of the run instead of
 * cold (about 50 → 20 ms). Skipped once half the run's cases are sent: it could then still be
 * running when the last answer is in, and only delay the end. Nothing is written, and no cache
 * the end reads is replaced (the report has no intervals: no bootstrap runs).
 */
function warmUp(): void {
  if (warming === null || planned === null || renderer === null) return;
  if (handed.cases.size < WARM_CASES) return;
  const { run, info, seed } = warming;
  const { cases, shared } = planned;
  warming = null;
  if (Atomics.load(shared, SHARED_SENT) > cases * 0.5) return;
  try {
    const some = [...handed.cases.values()].slice(0, WARM_CASES).flat();
    const calibration = calibrationTables(some, seed);
    renderer.htmlReport(buildReport(run, some, info, { seed, resamples: 0, calibration }));
    Atomics.or(shared, SHARED_WARMED, WARMED_REPORT);
  } catch {
    // Warming up only: the end of the run does the real work, and reports its failures.
  }
}

/** The registry's sample measures: those the summary bootstraps from all its decisions at the end. */
const SAMPLE_METRICS = METRIC_REGISTRY.filter((m): m is SampleMetric => m.kind === "sample");
/** The sample measures are warmed up on this many cases (or half the run's, when fewer). */
const WARM_INTERVAL_CASES = 100;
/**
 * …and only when the rest of the run, at its pace so far, takes at least this long (ms). Their
 * bootstrap takes 40–60 ms cold: a run that asks as fast as a local server answers has no time
 * to spare for it, and it would only slow the run's requests and the worker's sums.
 */
const WARM_INTERVALS_AHEAD_MS = 500;

/**
 * Bootstraps the sample measures of the run's first answered cases and discards them, so that
 * at the end of the run the summary's are bootstrapped by compiled code instead of cold (their
 * resamples at the end of a 400-case run: 99–117 ms cold, 52–81 ms after warming up on 100
 * cases). Nothing the end reads is changed: the bootstrap's caches hold draws by seed and case
 * count, the same for any decisions.
 */
function warmIntervals(): void {
  if (planned === null || !planned.warmIntervals) return;
  const { cases, seed, since, shared } = planned;
  const have = handed.cases.size;
  if (have < Math.min(WARM_INTERVAL_CASES, Math.ceil(cases / 2))) return;
  planned.warmIntervals = false;
  // From the plan's sending: a worker still loading or catching up takes the first cases in a
  // burst, and timed from its own start it would judge the run faster than it is.
  const ahead = (cases - have) * (performance.timeOrigin + performance.now() - since) / have;
  if (ahead < WARM_INTERVALS_AHEAD_MS) return;
  try {
    bootstrapIntervals([...handed.cases.values()].flat(), { seed, metrics: SAMPLE_METRICS });
    Atomics.or(shared, SHARED_WARMED, WARMED_INTERVALS);
  } catch {
    // Warming up only: the end of the run does the real work, and reports its failures.
  }
}

/** Decision records from their `decisions.jsonl` lines. */
function parseLines(lines: string): DecisionRecord[] {
  const out: DecisionRecord[] = [];
  for (const line of lines.split("\n")) if (line !== "") out.push(JSON.parse(line));
  return out;
}

/** The run's decisions in dataset order, from those handed over case by case. */
function handedRecords(run: string, order: readonly string[]): DecisionRecord[] {
  if (handed.run !== run) throw new Error("The report worker holds no decisions of this run");
  return order.flatMap((id) => {
    const list = handed.cases.get(id);
    if (list === undefined) throw new Error(`The report worker holds no decision of case "${id}"`);
    return list;
  });
}

function decisions(): readonly DecisionRecord[] {
  if (records === null) throw new Error("The report worker holds no decisions of the run");
  return records;
}

serveJobs(async (job: RunReportJob): Promise<RunReportAnswer> => {
  if (job.kind === "plan") {
    fed = { run: job.run, sums: new ReportAccumulator(job.cases, job.seed) };
    planned = {
      run: job.run,
      cases: job.cases.length,
      seed: job.seed,
      since: job.sentAt,
      shared: job.shared,
      warmIntervals: true,
    };
    warming = job.warm ? { ...job.warm, seed: job.seed } : null;
    return "";
  }
  if (job.kind === "cases") {
    if (handed.run !== job.run) handed = { run: job.run, cases: new Map() };
    const list = job.records ?? parseLines(job.lines ?? "");
    const before = handed.cases.size;
    for (const r of list) {
      const held = handed.cases.get(r.case);
      if (held) held.push(r);
      else handed.cases.set(r.case, [r]);
    }
    if (planned?.run === job.run) {
      Atomics.add(planned.shared, SHARED_FED, handed.cases.size - before);
    }
    if (fed?.run === job.run) fed.sums.add(list);
    warmUp();
    if (planned?.run === job.run) warmIntervals();
    return "";
  }
  if (job.kind === "intervals") {
    // Null until they are put together: the later jobs then fail, and the run does their work.
    records = null;
    breakdowns = null;
    records = job.records ?? handedRecords(job.run, job.order);
    handed = { run: "", cases: new Map() };
    const intervals = fed?.run === job.run
      ? fed.sums.intervals(records, job.seed)
      : bootstrapIntervals(records, { seed: job.seed });
    Atomics.store(job.done, 0, 1);
    return intervals;
  }
  if (job.kind === "breakdowns") {
    breakdowns = fed?.run === job.run
      ? fed.sums.breakdowns(decisions(), job.seed)
      : reportBreakdowns(decisions(), job.seed);
    fed = null;
    return breakdowns;
  }
  const { htmlReport } = await html;
  const report = buildReport(job.run, decisions(), job.info, {
    ...(breakdowns !== null ? { breakdowns } : {}),
    calibration: job.calibration,
  });
  await writeAtomic(job.path, htmlReport(report));
  return job.path;
});
