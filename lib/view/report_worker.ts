/**
 * Run page reports computed off the request path: one module worker (started on first use)
 * computes each report while the view goes on answering; the result is the same
 * `runPageReport` the page would compute itself.
 *
 * @module
 */
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import type { RunPageReport } from "./run_report.ts";
import { JobWorker } from "../job_worker.ts";

/** A report to compute. */
export interface ReportJob {
  /** Job id. */
  id: number;
  /** The run record. */
  run: RunJson;
  /** Its decisions. */
  records: readonly DecisionRecord[];
}

/** Computes run page reports in a worker. */
export class ReportWorker {
  #jobs = new JobWorker<Omit<ReportJob, "id">, RunPageReport>(
    new URL("./_report_worker.ts", import.meta.url),
    "compute the run report",
  );

  /**
   * Computes a run page's report in the worker.
   *
   * @param run The run record.
   * @param records Its decisions.
   * @returns The report.
   * @throws {Error} When the computation fails.
   */
  compute(run: RunJson, records: readonly DecisionRecord[]): Promise<RunPageReport> {
    return this.#jobs.run({ run, records });
  }

  /** Stops the worker (pending reports are rejected). */
  close(): void {
    this.#jobs.stop(new Error("Cannot compute the run report: the view stopped"));
  }
}
