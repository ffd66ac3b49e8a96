/**
 * Run page reports computed off the request path: one module worker (started on first use)
 * computes each report while the view goes on answering; the result is the same
 * `runPageReport` the page would compute itself.
 *
 * @module
 */
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import type { RunPageReport } from "./run_report.ts";

/** A report to compute. */
export interface ReportJob {
  /** Job id. */
  id: number;
  /** The run record. */
  run: RunJson;
  /** Its decisions. */
  records: readonly DecisionRecord[];
}

type Reply = { id: number; report: RunPageReport } | { id: number; error: string };

/** Computes run page reports in a worker. */
export class ReportWorker {
  #worker: Worker | null = null;
  #next = 0;
  #pending = new Map<number, { resolve: (r: RunPageReport) => void; reject: (e: Error) => void }>();

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./_report_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = (event: MessageEvent<Reply>) => {
      const job = this.#pending.get(event.data.id);
      if (!job) return;
      this.#pending.delete(event.data.id);
      if ("error" in event.data) job.reject(new Error(event.data.error));
      else job.resolve(event.data.report);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const error = new Error(`Cannot compute the run report: ${event.message}`);
      for (const job of this.#pending.values()) job.reject(error);
      this.#pending.clear();
      worker.terminate();
      this.#worker = null;
    };
    this.#worker = worker;
    return worker;
  }

  /**
   * Computes a run page's report in the worker.
   *
   * @param run The run record.
   * @param records Its decisions.
   * @returns The report.
   * @throws {Error} When the computation fails.
   */
  compute(run: RunJson, records: readonly DecisionRecord[]): Promise<RunPageReport> {
    const id = ++this.#next;
    const worker = this.#start();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, run, records } satisfies ReportJob);
    });
  }

  /** Stops the worker (pending reports are rejected). */
  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
    for (const job of this.#pending.values()) {
      job.reject(new Error("Cannot compute the run report: the view stopped"));
    }
    this.#pending.clear();
  }
}
