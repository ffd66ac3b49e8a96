/**
 * Stability passes (`--repeat K [--parallel-sweep 1,4,16]`): after the official pass, every case
 * is asked again so that it has been asked K times at each concurrency of the sweep (the official
 * pass counts as the first of the K at the run's own concurrency). Each pass runs to the end
 * before the next starts, so its concurrency is exactly the one recorded. The answers go to
 * `repeats.jsonl` as each case is answered and are compared with the official pass by
 * `stabilitySummary`; the official scores never read them.
 *
 * @module
 */
import type { Case } from "../dataset/mod.ts";
import {
  askCase,
  type AskOptions,
  pool,
  type ReplicaSet,
  type ReplyCache,
  tryBuild,
} from "../client/mod.ts";
import { askCacheFor } from "./request_cache.ts";
import {
  type DecisionRecord,
  decisionRecords,
  type RepeatRecord,
  RepeatsWriter,
  type RunStability,
} from "../record/mod.ts";
import { stabilitySummary } from "../metrics/mod.ts";
import type { PreparedEndpoint } from "./run.ts";

/** Options of {@linkcode runRepeats}. */
export interface RepeatOptions {
  /** Times each case is asked at each concurrency (at least 1). */
  repeat: number;
  /**
   * Concurrencies to ask at, in order.
   *
   * @default {[parallel]} (the run's own)
   */
  parallelSweep?: readonly number[] | undefined;
  /** The official pass's concurrency. */
  parallel: number;
  /**
   * Stops the passes when aborted; what was answered is kept and `complete` is false.
   *
   * @default {undefined}
   */
  signal?: AbortSignal | undefined;
  /**
   * Backoff base for retries in ms.
   *
   * @default {250}
   */
  backoffMs?: number | undefined;
  /**
   * The request cache: each pass reads and stores its own entries (the pass number is part of
   * the key), so no pass reuses another's replies.
   *
   * @default {undefined}
   */
  cache?: ReplyCache | undefined;
  /**
   * The run's replicas (`endpoint.replicas`): each pass's requests are spread over them as the
   * run's own pass is (least-loaded first, a failing replica left out), and counted in their
   * figures. A pass then has at most the replicas' summed slots in flight.
   *
   * @default {undefined} (the endpoint's one server)
   */
  replicas?: ReplicaSet | undefined;
  /**
   * Called after each pass.
   *
   * @default {undefined}
   */
  onPass?:
    | ((pass: { parallel: number; pass: number; cases: number; errors: number }) => void)
    | undefined;
}

/**
 * The passes to run: at each concurrency of the sweep, passes 1 … `repeat`, except pass 1 at the
 * run's own concurrency (the official pass).
 *
 * @param options Repeat count, sweep and the official pass's concurrency.
 * @returns The passes in the order they run.
 */
export function repeatPlan(
  options: Pick<RepeatOptions, "repeat" | "parallelSweep" | "parallel">,
): { parallel: number; pass: number }[] {
  const sweep = options.parallelSweep?.length ? options.parallelSweep : [options.parallel];
  const plan: { parallel: number; pass: number }[] = [];
  for (const parallel of sweep) {
    for (let pass = 1; pass <= options.repeat; pass++) {
      if (parallel === options.parallel && pass === 1) continue;
      plan.push({ parallel, pass });
    }
  }
  return plan;
}

/**
 * Runs the stability passes over the cases of the official pass and summarises them.
 *
 * @param context The cases, the prepared endpoint, the run directory and the official decisions.
 * @param options Repeat count, sweep, signal.
 * @returns What `run.json` records as `stability`.
 * @throws {Error} When `repeats.jsonl` cannot be written.
 */
export async function runRepeats(
  context: {
    cases: readonly Case[];
    endpoint: PreparedEndpoint;
    dir: string;
    official: readonly DecisionRecord[];
  },
  options: RepeatOptions,
): Promise<RunStability> {
  const { cases, endpoint, dir, official } = context;
  const asked = new Set(official.map((r) => r.case));
  const items = cases.filter((c) => asked.has(c.id));
  const plan = repeatPlan(options);
  const writer = new RepeatsWriter(dir);
  await writer.open();
  const repeats: RepeatRecord[] = [];
  let complete = true;
  try {
    for (const [position, { parallel, pass }] of plan.entries()) {
      const cache = askCacheFor(options.cache, endpoint, position + 1);
      if (options.signal?.aborted) {
        complete = false;
        break;
      }
      let errors = 0;
      let fatal = false;
      let answered = 0;
      const askOptions: AskOptions = {
        apiKey: endpoint.apiKey,
        timeoutMs: endpoint.spec.timeoutMs,
        maxReplyBytes: endpoint.spec.maxReplyBytes,
        maxRetryAfterMs: endpoint.spec.maxRetryAfterMs,
        retries: endpoint.spec.retries,
        backoffMs: options.backoffMs,
        signal: options.signal,
        cache,
      };
      await pool(items, parallel, async (item) => {
        const input = {
          state: item.state,
          questions: item.questions,
          model: endpoint.model,
          stateEncoding: endpoint.spec.stateEncoding,
        };
        const asking = async () => {
          if (options.replicas !== undefined) {
            return await options.replicas.ask(input, item.questions, askOptions);
          }
          const request = tryBuild(endpoint.engine, input);
          return "error" in request
            ? request
            : await askCase(endpoint.engine, request, item.questions, askOptions);
        };
        const outcome = await asking().catch((error) => {
          if (options.signal?.aborted) return null;
          throw error;
        });
        if (outcome === null) return;
        if (outcome.fatal) {
          fatal = true;
          return;
        }
        if (outcome.error) errors++;
        const records = decisionRecords(item, outcome).map((r) => ({ ...r, parallel, pass }));
        writer.append(records);
        repeats.push(...records);
        answered++;
      }, options.signal);
      options.onPass?.({ parallel, pass, cases: answered, errors });
      if (fatal || answered < items.length) {
        complete = false;
        break;
      }
    }
  } finally {
    writer.close();
  }
  return {
    repeat: options.repeat,
    parallel: [...(options.parallelSweep?.length ? options.parallelSweep : [options.parallel])],
    complete,
    ...stabilitySummary(official, repeats),
  };
}
