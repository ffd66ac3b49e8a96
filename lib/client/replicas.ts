/**
 * Model replicas: one run's requests spread over several servers of one model. Each replica has
 * its own engine (its URL) and its own concurrency (its `/props` slots, or `--parallel N`); a
 * request goes to the least-loaded replica that has a free slot (in-flight ÷ slots, the first
 * listed on a tie). A replica whose requests fail `excludeAfter` times in a row (transient kinds:
 * network, timeout, 429, 5xx) is left out for the rest of the run, and the case that failed there
 * is asked again on another replica, so the run goes on while one replica is alive. Each replica
 * counts its requests, errors and latencies (a bounded histogram) for run.json and the reports.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import { askCase, type AskOptions, type CaseOutcome, tryBuild } from "./ask.ts";
import type { BuildInput, Engine } from "./engine.ts";
import { isTransientKind } from "./errors.ts";
import { safeUrl } from "./redact.ts";

/** Failed requests in a row after which a replica is left out. */
export const REPLICA_EXCLUDE_AFTER = 5;

/** What run.json records of one replica. */
export interface ReplicaStats {
  /** The replica's URL (credentials stripped). */
  url: string;
  /** Requests in flight it was given (its slots, or `--parallel`). */
  slots: number;
  /**
   * Requests sent to it (every attempt, in the run's pass and its `--repeat` stability passes);
   * always `answered + errors`. A reply from the request cache is not a request.
   */
  requests: number;
  /** Requests it answered with a valid answer (one that passed validation). */
  answered: number;
  /**
   * Requests that got no valid answer: transient failures (network, timeout, 429, 5xx) and
   * answers the server did give that were refused (malformed, other 4xx).
   */
  errors: number;
  /** Whether it was left out after failing {@linkcode REPLICA_EXCLUDE_AFTER} times in a row. */
  excluded: boolean;
  /** Latency of its answered (valid) requests in ms, or null when none was answered. */
  latency: { mean: number; p50: number; p95: number; max: number } | null;
}

/** Log-spaced latency buckets: 0.1 ms × 1.05^i, about 5% wide, up to about an hour. */
const BUCKET_BASE = 0.1;
const BUCKET_GROWTH = 1.05;
const BUCKETS = 360;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(id);
      reject(signal?.reason);
    };
    const id = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

class Replica {
  readonly engine: Engine;
  readonly slots: number;
  inFlight = 0;
  requests = 0;
  answered = 0;
  errors = 0;
  failStreak = 0;
  excluded = false;
  #latencySum = 0;
  #latencyMax = 0;
  readonly #histogram = new Float64Array(BUCKETS);

  constructor(engine: Engine, slots: number) {
    this.engine = engine;
    this.slots = slots;
  }

  addLatency(ms: number): void {
    this.#latencySum += ms;
    this.#latencyMax = Math.max(this.#latencyMax, ms);
    const i = ms <= BUCKET_BASE
      ? 0
      : Math.ceil(Math.log(ms / BUCKET_BASE) / Math.log(BUCKET_GROWTH));
    this.#histogram[Math.min(i, BUCKETS - 1)]!++;
  }

  #quantile(q: number): number {
    const target = q * this.answered;
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.#histogram[i]!;
      if (seen >= target && seen > 0) {
        return Math.min(BUCKET_BASE * BUCKET_GROWTH ** i, this.#latencyMax);
      }
    }
    return this.#latencyMax;
  }

  stats(): ReplicaStats {
    return {
      url: safeUrl(this.engine.url),
      slots: this.slots,
      requests: this.requests,
      answered: this.answered,
      errors: this.errors,
      excluded: this.excluded,
      latency: this.answered === 0 ? null : {
        mean: this.#latencySum / this.answered,
        p50: this.#quantile(0.5),
        p95: this.#quantile(0.95),
        max: this.#latencyMax,
      },
    };
  }
}

/** A case's outcome with the replica that gave it. */
export interface ReplicaOutcome extends CaseOutcome {
  /** Index of the replica that answered (or last failed), or null when nothing was sent. */
  replica: number | null;
}

/** Options of {@linkcode ReplicaSet}. */
export interface ReplicaSetOptions {
  /**
   * Failed requests in a row after which a replica is left out.
   * @default {REPLICA_EXCLUDE_AFTER}
   */
  excludeAfter?: number | undefined;
  /**
   * Called when a replica is left out.
   * @default undefined
   */
  onExclude?: ((stats: ReplicaStats, live: number) => void) | undefined;
}

/** Several servers of one model, each with its own slots. */
export class ReplicaSet {
  readonly #replicas: Replica[];
  readonly #excludeAfter: number;
  readonly #onExclude: ReplicaSetOptions["onExclude"];
  #waiters: (() => void)[] = [];

  /**
   * Makes the set.
   *
   * @param replicas Each replica's engine and slots (≥ 1), in the order the workflow lists them.
   * @param options When a replica is left out.
   * @throws {RangeError} When there is no replica or a slot count is not a positive integer.
   */
  constructor(
    replicas: readonly { engine: Engine; slots: number }[],
    options: ReplicaSetOptions = {},
  ) {
    if (replicas.length === 0) throw new RangeError("Cannot spread requests over no replica");
    for (const r of replicas) {
      if (!Number.isSafeInteger(r.slots) || r.slots < 1) {
        throw new RangeError(
          `Cannot use replica ${safeUrl(r.engine.url)}: ${r.slots} slots is not a positive integer`,
        );
      }
    }
    this.#replicas = replicas.map((r) => new Replica(r.engine, r.slots));
    this.#excludeAfter = options.excludeAfter ?? REPLICA_EXCLUDE_AFTER;
    this.#onExclude = options.onExclude;
  }

  /** Requests in flight over all replicas: the sum of their slots. */
  get capacity(): number {
    return this.#replicas.reduce((n, r) => n + r.slots, 0);
  }

  /** Replicas not left out. */
  get live(): number {
    return this.#replicas.filter((r) => !r.excluded).length;
  }

  /** The first replica's engine (the run's endpoint identity). */
  get first(): Engine {
    return (this.#replicas[0] as Replica).engine;
  }

  /**
   * Each replica's figures, in the workflow's order.
   *
   * @returns The stats.
   */
  stats(): ReplicaStats[] {
    return this.#replicas.map((r) => r.stats());
  }

  /**
   * The least-loaded live replica with a free slot (in-flight ÷ slots, the first listed on a
   * tie); never `avoid` (where the case just failed) while another replica is live, even if that
   * one must be waited for.
   */
  #pick(avoid: number | null): number | null {
    const skip = avoid !== null && this.live > 1 ? avoid : null;
    let best: number | null = null;
    let bestLoad = Infinity;
    for (const [i, r] of this.#replicas.entries()) {
      if (r.excluded || r.inFlight >= r.slots || i === skip) continue;
      const load = r.inFlight / r.slots;
      if (load < bestLoad) {
        best = i;
        bestLoad = load;
      }
    }
    return best;
  }

  async #acquire(avoid: number | null, signal?: AbortSignal): Promise<number | null> {
    for (;;) {
      if (this.live === 0) return null;
      signal?.throwIfAborted();
      const i = this.#pick(avoid);
      if (i !== null) {
        (this.#replicas[i] as Replica).inFlight++;
        return i;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener("abort", wake);
          resolve();
        };
        this.#waiters.push(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
    }
  }

  #release(i: number): void {
    (this.#replicas[i] as Replica).inFlight--;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #count(i: number, outcome: CaseOutcome): void {
    const r = this.#replicas[i] as Replica;
    // A reply from the request cache was not sent to any replica.
    if (outcome.cached === true || outcome.attempts === 0) return;
    r.requests += outcome.attempts;
    if (outcome.reply !== null) {
      // The last attempt gave a valid answer; any before it (retries: 0 here, so none) failed.
      r.answered++;
      r.errors += outcome.attempts - 1;
      r.failStreak = 0;
      if (outcome.latencyMs !== null) r.addLatency(outcome.latencyMs);
      return;
    }
    r.errors += outcome.attempts;
    if (outcome.error !== null && isTransientKind(outcome.error.kind)) {
      r.failStreak += outcome.attempts;
      if (!r.excluded && r.failStreak >= this.#excludeAfter) {
        r.excluded = true;
        this.#onExclude?.(r.stats(), this.live);
      }
    } else {
      // An answer the server did give (malformed, 4xx): an error, but the replica is alive.
      r.failStreak = 0;
    }
  }

  /**
   * Asks one case on the replicas: one request at a time on the least-loaded live replica; a
   * transient failure is asked again on another replica when one is live (up to `retries` more
   * requests), else on the same one after a backoff.
   *
   * @param input The case's state, questions, model and state encoding.
   * @param questions The questions (for validation).
   * @param options Key, timeout, retries, backoff, signal.
   * @returns The outcome with the replica that gave it; a `network` error when every replica is
   *   left out.
   * @throws {DOMException} When `options.signal` aborts.
   */
  async ask(
    input: BuildInput,
    questions: Record<string, Question>,
    options: AskOptions = {},
  ): Promise<ReplicaOutcome> {
    const retries = options.retries ?? 2;
    const backoffMs = options.backoffMs ?? 250;
    let attempts = 0;
    let last: ReplicaOutcome | null = null;
    let avoid: number | null = null;
    for (let tried = 0;; tried++) {
      const i = await this.#acquire(avoid, options.signal);
      if (i === null) {
        return last ?? {
          reply: null,
          error: {
            kind: "network",
            message:
              `Cannot reach any replica: all ${this.#replicas.length} were left out after ${this.#excludeAfter} failed requests in a row`,
            status: null,
          },
          fatal: false,
          attempts,
          latencyMs: null,
          replica: null,
        };
      }
      let outcome: CaseOutcome;
      try {
        const replica = this.#replicas[i] as Replica;
        if (i === avoid && tried > 0) {
          // The one replica left is asked again: back off first, as a single server would be.
          await sleep(backoffMs * 2 ** (tried - 1), options.signal);
        }
        const request = tryBuild(replica.engine, input);
        outcome = "error" in request
          ? request
          : await askCase(replica.engine, request, questions, { ...options, retries: 0 });
        this.#count(i, outcome);
      } finally {
        this.#release(i);
      }
      attempts += outcome.attempts;
      last = { ...outcome, attempts, replica: i };
      const transient = outcome.error !== null && isTransientKind(outcome.error.kind);
      if (!transient || tried >= retries) return last;
      avoid = i;
    }
  }
}
