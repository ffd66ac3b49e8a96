/**
 * The worker that computes run pages' reports (breakdown bootstraps and charts), so a large run's
 * first opening does not hold up every other request of the view.
 *
 * @module
 */
import { runPageReport } from "./run_report.ts";
import type { ReportJob } from "./report_worker.ts";
import { serveJobs } from "../job_worker.ts";

serveJobs((job: ReportJob) => runPageReport(job.run, job.records));
