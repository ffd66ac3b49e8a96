/**
 * The worker behind {@linkcode RunReportWorker}: it loads the HTML renderer (Observable Plot and
 * linkedom) and sums the summary's and breakdowns' bootstraps while the run's requests go on,
 * reads the summary's intervals and the breakdowns off them once the last answer is in, and
 * writes `report.html`.
 *
 * @module
 */
import { bootstrapIntervals } from "../metrics/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import { writeAtomic } from "../record/mod.ts";
import {
  buildReport,
  ReportAccumulator,
  type ReportBreakdowns,
  reportBreakdowns,
} from "./model.ts";
import type { RunReportAnswer, RunReportJob } from "./run_worker.ts";
import { serveJobs } from "../job_worker.ts";

// Started at once: the charts' libraries take ~100 ms to load, and the run leaves time for it.
const html = import("./html.ts");
html.catch(() => {}); // a failed import is reported by the job that needs it

// The decisions of the last intervals job, for the breakdowns and report.html (null when that job
// could not put them together).
let records: readonly DecisionRecord[] | null = null;
let breakdowns: ReportBreakdowns | null = null;
// The bootstraps of the planned run's summary and breakdowns, summed as its answers come in.
let fed: { run: string; sums: ReportAccumulator } | null = null;
// The decisions handed over while the run went on, per case.
let handed: { run: string; cases: Map<string, DecisionRecord[]> } = { run: "", cases: new Map() };

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
    return "";
  }
  if (job.kind === "cases") {
    if (handed.run !== job.run) handed = { run: job.run, cases: new Map() };
    for (const r of job.records) {
      const list = handed.cases.get(r.case);
      if (list) list.push(r);
      else handed.cases.set(r.case, [r]);
    }
    if (fed?.run === job.run) fed.sums.add(job.records);
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
