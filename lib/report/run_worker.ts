/**
 * A run's reports computed beside it: one module worker loads the HTML renderer (Observable Plot
 * and linkedom) and sums the summary's and breakdowns' bootstraps case by case while the
 * requests go on; once the last answer is in, it reads the summary's intervals off them while
 * the run computes the summary's values, then the breakdowns, then writes `report.html` while
 * the run rewrites `decisions.jsonl` and writes `run.json`, `report.md` and the index. The files
 * are the ones the run would write itself, byte for byte.
 *
 * @module
 */
import type { DatasetInfo } from "../dataset/mod.ts";
import type { DecisionRecord, RunJson } from "../record/mod.ts";
import type { BootstrapIntervals, PlannedCase } from "../metrics/mod.ts";
import type { ReportBreakdowns } from "./model.ts";
import type { CalibrationTables } from "./calibration_tables.ts";
import { JobWorker } from "../job_worker.ts";

/** A job for the worker. */
export type RunReportJob =
  | {
    kind: "plan";
    run: string;
    cases: readonly PlannedCase[];
    seed: number;
    /** The run record as it starts and the dataset info: the worker warms up on its first answers. */
    warm?: { run: RunJson; info: DatasetInfo } | undefined;
    /** Shared memory: the cases sent so far, what the worker has warmed up, the cases it took. */
    shared: Int32Array;
    /**
     * When the plan was sent (ms since the epoch, `performance.timeOrigin + performance.now()`):
     * the run's pace is measured from here, not from when a busy worker got to the plan.
     */
    sentAt: number;
  }
  | {
    kind: "cases";
    run: string;
    /** The cases' decisions, or `lines` instead. */
    records?: readonly DecisionRecord[] | undefined;
    /** The cases' decisions as their `decisions.jsonl` lines (cheaper to hand over). */
    lines?: string | undefined;
  }
  | {
    kind: "intervals";
    run: string;
    /** The run's decisions; absent when every one was handed over with `cases` already. */
    records?: readonly DecisionRecord[] | undefined;
    /** The run's case ids, in dataset order (for `records` put together from those handed over). */
    order: readonly string[];
    seed: number;
    /** Set to 1 by the worker once the intervals are computed (shared memory). */
    done: Int32Array;
  }
  | { kind: "breakdowns"; run: string; seed: number }
  | {
    kind: "html";
    run: RunJson;
    info: DatasetInfo;
    path: string;
    calibration?: CalibrationTables | undefined;
  };

/** In a plan's shared memory: the number of cases handed over so far, counted as they are sent. */
export const SHARED_SENT = 0;
/** In a plan's shared memory: what the worker has warmed up (`WARMED_*` bits). */
export const SHARED_WARMED = 1;
/** In a plan's shared memory: the number of cases the worker has taken so far. */
export const SHARED_FED = 2;
/** A `SHARED_WARMED` bit: the worker has drawn a report of the run's first answers. */
export const WARMED_REPORT = 1;
/** A `SHARED_WARMED` bit: the worker has bootstrapped the sample measures of its first answers. */
export const WARMED_INTERVALS = 2;

/** What a job of the worker gives back. */
export type RunReportAnswer =
  | ReportBreakdowns
  | BootstrapIntervals
  | string;

/**
 * The worker that bootstraps a run's summary and breakdowns and writes its `report.html`. A
 * caller that runs a benchmark and exits (`deno task bench`) makes one, hands it to
 * `runBenchmark` (`reportWorker`) and closes it at the end. The run starts it once its first
 * answer is in, when enough cases are left to hide the ~100 ms its renderer takes to load
 * (starting a worker also holds the run's thread for 15–25 ms); a run that does not start it does
 * the same work itself.
 *
 * @example
 * ```ts ignore
 * using worker = new RunReportWorker();
 * const result = await runBenchmark(workflow, { reportWorker: worker });
 * ```
 */
export class RunReportWorker implements Disposable {
  // From the bundle (lib/cli/bundle.ts) this code is in a .js file beside the bundled worker.
  #jobs = new JobWorker<RunReportJob, RunReportAnswer>(
    new URL(
      import.meta.url.endsWith(".js") ? "./_run_worker.js" : "./_run_worker.ts",
      import.meta.url,
    ),
    "write the run's reports in a worker",
  );
  #closed = false;
  // Shared with the worker: 1 once the last intervals asked for are computed.
  #done = new Int32Array(new SharedArrayBuffer(4));
  // Shared with the worker, for the planned run: the cases handed over so far, counted as they
  // are sent, what the worker has warmed up, and the cases it has taken.
  #shared = new Int32Array(new SharedArrayBuffer(12));
  // The decisions per case handed over with `cases` for the last run: those the worker holds.
  #handed: { run: string; cases: Map<string, number> } = { run: "", cases: new Map() };

  /** The `report.html` files the worker has written. */
  readonly written: string[] = [];

  /**
   * Cases of the planned run whose decisions the worker has taken while the run went on
   * ({@linkcode RunReportWorker.cases}), read from memory shared with it.
   */
  get fed(): number {
    return Atomics.load(this.#shared, SHARED_FED);
  }

  /**
   * Whether the worker has computed the intervals of the last
   * {@linkcode RunReportWorker.intervals} call, read at once from memory shared with it: true
   * before its answer has reached a thread that is busy.
   */
  get intervalsDone(): boolean {
    return Atomics.load(this.#done, 0) === 1;
  }

  /**
   * Whether the worker has warmed up on the planned run's first answers: drawn (and discarded) a
   * report of them, so the run's own report.html is drawn by compiled code. It does not when the
   * run was half done before its renderer was loaded.
   */
  get warmed(): boolean {
    return (Atomics.load(this.#shared, SHARED_WARMED) & WARMED_REPORT) !== 0;
  }

  /**
   * Whether the worker has bootstrapped the sample measures (equal-mass ECE, AURC, Murphy, …) of
   * the planned run's first answers and discarded them, so the summary's own are bootstrapped by
   * compiled code. It does only when the run, at its pace so far, has time to spare for it.
   */
  get warmedIntervals(): boolean {
    return (Atomics.load(this.#shared, SHARED_WARMED) & WARMED_INTERVALS) !== 0;
  }

  /** Whether the worker was started (and not closed). */
  get started(): boolean {
    return this.#jobs.started;
  }

  /** Starts the worker, which begins loading the HTML renderer at once; later calls do nothing. */
  start(): void {
    if (!this.#closed) this.#jobs.start();
  }

  #send(job: RunReportJob): Promise<RunReportAnswer> {
    if (!this.#jobs.started) {
      const why = this.#closed ? "is closed" : "is not started";
      return Promise.reject(new Error(`The report worker ${why}`));
    }
    return this.#jobs.run(job);
  }

  /**
   * Tells the worker which cases a run will have, so it can sum the summary's and breakdowns'
   * bootstraps as the answers come in ({@linkcode RunReportWorker.cases}). Nothing is lost when
   * this fails.
   *
   * @param run The run id.
   * @param cases Every case of the run, in dataset order (`plannedCases`).
   * @param seed The run's bootstrap seed.
   * @param warm The run record as it starts and the dataset info: the worker then draws (and
   *   discards) a report of the first answered cases, so the run's own report.html is drawn by
   *   compiled code ({@linkcode RunReportWorker.warmed}).
   */
  plan(
    run: string,
    cases: readonly PlannedCase[],
    seed: number,
    warm?: { run: RunJson; info: DatasetInfo },
  ): void {
    this.#shared.fill(0);
    const sentAt = performance.timeOrigin + performance.now();
    this.#send({ kind: "plan", run, cases, seed, warm, shared: this.#shared, sentAt }).catch(
      () => {},
    );
  }

  /**
   * Hands the worker the decisions of answered cases of the planned run, whole cases in any
   * order, while the run goes on. Nothing is lost when this fails: the intervals and breakdowns
   * compute what the worker could not sum.
   *
   * @param run The run id.
   * @param records Every decision of each case.
   * @param lines The same decisions as the lines `decisions.jsonl` holds for them (what
   *   `RunRecorder.append` wrote): handed over instead of the records, which costs this thread
   *   about a fifth as much.
   */
  cases(run: string, records: readonly DecisionRecord[], lines?: string): void {
    if (!this.#jobs.started) return;
    if (this.#handed.run !== run) this.#handed = { run, cases: new Map() };
    const held = this.#handed.cases;
    const before = held.size;
    for (const r of records) held.set(r.case, (held.get(r.case) ?? 0) + 1);
    Atomics.add(this.#shared, SHARED_SENT, held.size - before);
    this.#jobs.post(
      lines === undefined ? { kind: "cases", run, records } : { kind: "cases", run, lines },
    );
  }

  /** Whether the worker holds exactly these decisions of the run (counted per case). */
  #holds(run: string, records: readonly DecisionRecord[]): boolean {
    if (this.#handed.run !== run) return false;
    const counts = new Map<string, number>();
    for (const r of records) counts.set(r.case, (counts.get(r.case) ?? 0) + 1);
    if (counts.size !== this.#handed.cases.size) return false;
    for (const [id, n] of counts) if (this.#handed.cases.get(id) !== n) return false;
    return true;
  }

  /**
   * Bootstraps the summary's intervals of the run's decisions in the worker, while the run
   * computes the summary's values (`summarize`'s `intervalMetrics: []`). The worker keeps the
   * decisions for {@linkcode RunReportWorker.breakdowns} and {@linkcode RunReportWorker.html}.
   *
   * @param records The run's decisions, in dataset order.
   * @param seed The run's bootstrap seed.
   * @param run The run id: the sums of its cases handed over by
   *   {@linkcode RunReportWorker.cases} are used, not computed again.
   * @returns Every registered metric's interval, as `bootstrapIntervals(records, { seed })`
   *   gives them.
   * @throws {Error} When the worker is not started or fails.
   */
  async intervals(
    records: readonly DecisionRecord[],
    seed: number,
    run = "",
  ): Promise<BootstrapIntervals> {
    Atomics.store(this.#done, 0, 0);
    // Decisions the worker holds already are not copied to it again.
    const order = [...new Set(records.map((r) => r.case))];
    const answer = await this.#send({
      kind: "intervals",
      run,
      ...(this.#holds(run, records) ? {} : { records }),
      order,
      seed,
      done: this.#done,
    });
    if (typeof answer === "string" || "byType" in answer) {
      throw new Error("The report worker gave no intervals");
    }
    return answer as BootstrapIntervals;
  }

  /**
   * Computes the report's breakdowns of the decisions of the last
   * {@linkcode RunReportWorker.intervals} call in the worker, which keeps them for
   * {@linkcode RunReportWorker.html}.
   *
   * @param seed The run's bootstrap seed.
   * @param run The run id, as given to {@linkcode RunReportWorker.intervals}.
   * @returns The breakdowns, as `reportBreakdowns(records, seed)` gives them.
   * @throws {Error} When the worker is not started or fails.
   */
  async breakdowns(seed: number, run = ""): Promise<ReportBreakdowns> {
    const answer = await this.#send({ kind: "breakdowns", run, seed });
    if (typeof answer === "string" || !("byType" in answer)) {
      throw new Error("The report worker gave no breakdowns");
    }
    return answer as ReportBreakdowns;
  }

  /**
   * Writes `report.html` of the finished run (atomically) from the decisions of the last
   * {@linkcode RunReportWorker.intervals} call and the breakdowns computed from them.
   *
   * @param run The finished run record, with its summary.
   * @param info Dataset info for the attribution.
   * @param path Where to write it.
   * @param calibration The calibration tables, when computed already (`calibrationTables`).
   * @throws {Error} When the worker is not started, fails, or cannot write the file.
   */
  async html(
    run: RunJson,
    info: DatasetInfo,
    path: string,
    calibration?: CalibrationTables,
  ): Promise<void> {
    await this.#send({ kind: "html", run, info, path, calibration });
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
