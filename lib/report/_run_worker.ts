/**
 * The worker behind {@linkcode RunReportWorker}: it loads the HTML renderer (Observable Plot and
 * linkedom) while the run's requests go on, computes the breakdowns once the last answer is in,
 * and writes `report.html`.
 *
 * @module
 */
import type { DecisionRecord } from "../record/mod.ts";
import { writeAtomic } from "../record/mod.ts";
import {
  addWorkflowRows,
  buildReport,
  type KnownRows,
  type ReportBreakdowns,
  reportBreakdowns,
} from "./model.ts";
import type { RunReportJob } from "./run_worker.ts";
import { serveJobs } from "../job_worker.ts";

// Started at once: the charts' libraries take ~100 ms to load, and the run leaves time for it.
const html = import("./html.ts");
html.catch(() => {}); // a failed import is reported by the job that needs it

let records: readonly DecisionRecord[] = [];
let breakdowns: ReportBreakdowns | null = null;
// Rows of the run's finished workflows, computed while its other cases are asked.
let ahead: { run: string; seed: number; rows: KnownRows } | null = null;

serveJobs(async (job: RunReportJob): Promise<ReportBreakdowns | string> => {
  if (job.kind === "workflow") {
    if (ahead?.run !== job.run || ahead.seed !== job.seed) {
      ahead = {
        run: job.run,
        seed: job.seed,
        rows: { byWorkflow: new Map(), byQuestion: new Map() },
      };
    }
    addWorkflowRows(ahead.rows, job.records, job.seed);
    return "";
  }
  if (job.kind === "breakdowns") {
    records = job.records;
    const known = ahead?.run === job.run && ahead.seed === job.seed ? ahead.rows : undefined;
    ahead = null;
    breakdowns = reportBreakdowns(records, job.seed, known);
    return breakdowns;
  }
  const { htmlReport } = await html;
  const report = buildReport(job.run, records, job.info, {
    ...(breakdowns !== null ? { breakdowns } : {}),
  });
  await writeAtomic(job.path, htmlReport(report));
  return job.path;
});
