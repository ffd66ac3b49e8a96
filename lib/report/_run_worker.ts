/**
 * The worker behind {@linkcode RunReportWorker}: it loads the HTML renderer (Observable Plot and
 * linkedom) while the run's requests go on, computes the breakdowns once the last answer is in,
 * and writes `report.html`.
 *
 * @module
 */
import type { DecisionRecord } from "../record/mod.ts";
import { writeAtomic } from "../record/mod.ts";
import { buildReport, type ReportBreakdowns, reportBreakdowns } from "./model.ts";
import type { RunReportJob } from "./run_worker.ts";
import { serveJobs } from "../job_worker.ts";

// Started at once: the charts' libraries take ~100 ms to load, and the run leaves time for it.
const html = import("./html.ts");
html.catch(() => {}); // a failed import is reported by the job that needs it

let records: readonly DecisionRecord[] = [];
let breakdowns: ReportBreakdowns | null = null;

serveJobs(async (job: RunReportJob): Promise<ReportBreakdowns | string> => {
  if (job.kind === "breakdowns") {
    records = job.records;
    breakdowns = reportBreakdowns(records, job.seed);
    return breakdowns;
  }
  const { htmlReport } = await html;
  const report = buildReport(job.run, records, job.info, {
    ...(breakdowns !== null ? { breakdowns } : {}),
  });
  await writeAtomic(job.path, htmlReport(report));
  return job.path;
});
