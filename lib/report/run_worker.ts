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
import { JobWorker } from "../job_worker.ts";

/** A job for the worker. */
export type RunReportJob =
  | { kind: "workflow"; run: string; records: readonly DecisionRecord[]; seed: number }
  | { kind: "breakdowns"; run: string; records: readonly DecisionRecord[]; seed: number }
  | { kind: "html"; run: RunJson; info: DatasetInfo; path: string };

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
  #jobs = new JobWorker<RunReportJob, ReportBreakdowns | string>(
    new URL("./_run_worker.ts", import.meta.url),
    "write the run's reports in a worker",
  );
  #closed = false;

  /** The `report.html` files the worker has written. */
  readonly written: string[] = [];

  /** The workflows handed over while their runs went on ({@linkcode RunReportWorker.workflowDone}). */
  readonly ahead: string[] = [];

  /** Whether the worker was started (and not closed). */
  get started(): boolean {
    return this.#jobs.started;
  }

  /** Starts the worker, which begins loading the HTML renderer at once; later calls do nothing. */
  start(): void {
    if (!this.#closed) this.#jobs.start();
  }

  #send(job: RunReportJob): Promise<ReportBreakdowns | string> {
    if (!this.#jobs.started) {
      const why = this.#closed ? "is closed" : "is not started";
      return Promise.reject(new Error(`The report worker ${why}`));
    }
    return this.#jobs.run(job);
  }

  /**
   * Hands the worker a workflow whose cases are all answered, while the run goes on: it
   * computes that workflow's breakdown rows then, and the run's breakdowns use them. Nothing
   * is lost when this fails (the breakdowns compute what is missing).
   *
   * @param run The run id.
   * @param records Every decision of the workflow, in dataset order.
   * @param seed The run's bootstrap seed.
   */
  workflowDone(run: string, records: readonly DecisionRecord[], seed: number): void {
    this.#send({ kind: "workflow", run, records, seed }).then(
      () => this.ahead.push(records[0]?.workflow ?? ""),
      () => {},
    );
  }

  /**
   * Computes the report's breakdowns of these decisions in the worker, which keeps the
   * decisions and breakdowns for {@linkcode RunReportWorker.html}.
   *
   * @param records The run's decisions, in dataset order.
   * @param seed The run's bootstrap seed.
   * @param run The run id: rows of its workflows handed over by
   *   {@linkcode RunReportWorker.workflowDone} are used, not computed again.
   * @returns The breakdowns, as `reportBreakdowns(records, seed)` gives them.
   * @throws {Error} When the worker is not started or fails.
   */
  async breakdowns(
    records: readonly DecisionRecord[],
    seed: number,
    run = "",
  ): Promise<ReportBreakdowns> {
    const answer = await this.#send({ kind: "breakdowns", run, records, seed });
    if (typeof answer === "string") throw new Error("The report worker gave no breakdowns");
    return answer;
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
    await this.#send({ kind: "html", run, info, path });
    this.written.push(path);
  }

  /** Stops the worker; jobs still pending are rejected. */
  close(): void {
    this.#closed = true;
    this.#jobs.stop(new Error("The report worker is closed"));
  }

  /** Same as {@linkcode RunReportWorker.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
