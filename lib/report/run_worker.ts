/**
 * A run's reports computed beside it: one module worker loads the HTML renderer (Observable Plot
 * and linkedom) while the requests go on; once the last answer is in, it computes the breakdowns
 * while the run computes the summary, then writes `report.html` while the run writes `report.md`
 * and the index. The files are the ones the run would write itself, byte for byte.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import type { ReportBreakdowns } from "./model.ts";

type Job =
  | { kind: "breakdowns"; records: readonly DecisionRecord[]; seed: number }
  | { kind: "html"; run: RunJson; info: DatasetInfo; path: string };

/** A job for the worker. */
export type RunReportJob = Job & { id: number };

/** The worker's answer to a job. */
export type RunReportReply =
  | { id: number; breakdowns: ReportBreakdowns }
  | { id: number; path: string }
  | { id: number; error: string };

type Pending = { resolve: (reply: RunReportReply) => void; reject: (error: Error) => void };

/**
 * The worker that computes a run's breakdowns and writes its `report.html`. A caller that runs a
 * benchmark and exits (`deno task bench`) makes one, hands it to `runBenchmark` (`reportWorker`)
 * and closes it at the end. The run starts it once its first answer is in, when enough cases are
 * left to hide the ~100 ms its renderer takes to load (starting a worker also holds the run's
 * thread for ~15 ms); a run that does not start it does the same work itself.
 *
 * @example
 * ```ts ignore
 * using worker = new RunReportWorker();
 * const result = await runBenchmark(workflow, { reportWorker: worker });
 * ```
 */
export class RunReportWorker implements Disposable {
  #worker: Worker | null = null;
  #next = 0;
  #pending = new Map<number, Pending>();
  #closed: Error | null = null;

  /** The `report.html` files the worker has written. */
  readonly written: string[] = [];

  /** Whether the worker was started (and not closed). */
  get started(): boolean {
    return this.#worker !== null;
  }

  /** Starts the worker, which begins loading the HTML renderer at once; later calls do nothing. */
  start(): void {
    if (this.#worker !== null || this.#closed !== null) return;
    const worker = new Worker(new URL("./_run_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = (event: MessageEvent<RunReportReply>) => {
      const job = this.#pending.get(event.data.id);
      if (!job) return;
      this.#pending.delete(event.data.id);
      job.resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#stop(new Error(`Cannot write the run's reports in a worker: ${event.message}`));
    };
    this.#worker = worker;
  }

  #stop(error: Error): void {
    this.#closed = error;
    this.#worker?.terminate();
    this.#worker = null;
    for (const job of this.#pending.values()) job.reject(error);
    this.#pending.clear();
  }

  #send(job: Job): Promise<RunReportReply> {
    const worker = this.#worker;
    if (worker === null) {
      return Promise.reject(this.#closed ?? new Error("The report worker is not started"));
    }
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id } satisfies RunReportJob);
    });
  }

  /**
   * Computes the report's breakdowns of these decisions in the worker, which keeps the
   * decisions and breakdowns for {@linkcode RunReportWorker.html}.
   *
   * @param records The run's decisions, in dataset order.
   * @param seed The run's bootstrap seed.
   * @returns The breakdowns, as `reportBreakdowns(records, seed)` gives them.
   * @throws {Error} When the worker is not started or fails.
   */
  async breakdowns(records: readonly DecisionRecord[], seed: number): Promise<ReportBreakdowns> {
    const answer = await this.#send({ kind: "breakdowns", records, seed });
    if ("error" in answer) throw new Error(answer.error);
    if (!("breakdowns" in answer)) throw new Error("The report worker gave no breakdowns");
    return answer.breakdowns;
  }

  /**
   * Writes `report.html` of the finished run (atomically) from the decisions and breakdowns of
   * the last {@linkcode RunReportWorker.breakdowns} call.
   *
   * @param run The finished run record, with its summary.
   * @param info Dataset info for the attribution.
   * @param path Where to write it.
   * @throws {Error} When the worker is not started, fails, or cannot write the file.
   */
  async html(run: RunJson, info: DatasetInfo, path: string): Promise<void> {
    const answer = await this.#send({ kind: "html", run, info, path });
    if ("error" in answer) throw new Error(answer.error);
    this.written.push(path);
  }

  /** Stops the worker; jobs still pending are rejected. */
  close(): void {
    this.#stop(new Error("The report worker is closed"));
  }

  /** Same as {@linkcode RunReportWorker.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
