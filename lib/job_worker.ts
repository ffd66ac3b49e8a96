/**
 * Jobs run in a module worker (the view's run pages): each job gets an id, the worker answers it
 * with its value or an error message, and a worker that fails rejects every job still waiting.
 *
 * @module
 */

/** What a worker answers to one job. */
export type JobReply<Answer> = { id: number; value: Answer } | { id: number; error: string };

type Pending<Answer> = { resolve: (value: Answer) => void; reject: (error: Error) => void };

/** The thread's side: a module worker, started on demand, that runs jobs one message each. */
export class JobWorker<Job extends object, Answer> {
  #url: URL;
  #what: string;
  #worker: Worker | null = null;
  #next = 0;
  #pending = new Map<number, Pending<Answer>>();

  /**
   * @param url The worker module (its side calls {@linkcode serveJobs}).
   * @param what What its jobs do, for the message when the worker fails ("compute the run
   *   report").
   */
  constructor(url: URL, what: string) {
    this.#url = url;
    this.#what = what;
  }

  /** Whether the worker is running. */
  get started(): boolean {
    return this.#worker !== null;
  }

  /** Starts the worker when it is not running (it holds this thread 15–25 ms). */
  start(): void {
    if (this.#worker !== null) return;
    const worker = new Worker(this.#url.href, { type: "module" });
    worker.onmessage = (event: MessageEvent<JobReply<Answer>>) => {
      const job = this.#pending.get(event.data.id);
      if (!job) return;
      this.#pending.delete(event.data.id);
      if ("error" in event.data) job.reject(new Error(event.data.error));
      else job.resolve(event.data.value);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.stop(new Error(`Cannot ${this.#what}: ${event.message}`));
    };
    this.#worker = worker;
  }

  /**
   * Runs one job in the worker, starting it when it is not running.
   *
   * @param job The job (structured-cloned).
   * @returns The worker's value.
   * @throws {Error} The worker's error message, or why the worker stopped.
   */
  run(job: Job): Promise<Answer> {
    this.start();
    const worker = this.#worker as Worker;
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id });
    });
  }

  /**
   * Stops the worker; jobs still waiting are rejected with `error`. A later job starts it again.
   *
   * @param error Why.
   */
  stop(error: Error): void {
    this.#worker?.terminate();
    this.#worker = null;
    for (const job of this.#pending.values()) job.reject(error);
    this.#pending.clear();
  }
}

/**
 * The worker's side: answers every job message with `handle`'s value, or with its error's
 * message.
 *
 * @param handle Runs one job (without its id).
 */
export function serveJobs<Job, Answer>(
  handle: (job: Job) => Answer | Promise<Answer>,
): void {
  // deno-lint-ignore no-explicit-any
  const scope = self as any;
  scope.onmessage = async (event: MessageEvent<Job & { id: number }>) => {
    const { id } = event.data;
    let reply: JobReply<Answer>;
    try {
      reply = { id, value: await handle(event.data) };
    } catch (error) {
      reply = { id, error: error instanceof Error ? error.message : String(error) };
    }
    scope.postMessage(reply);
  };
}
