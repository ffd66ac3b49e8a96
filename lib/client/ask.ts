/**
 * Asks one case: build, send with explicit bounded retries, parse. Every attempt is counted.
 *
 * @module
 */
import type { Question } from "../dataset/mod.ts";
import type { CaseError } from "./errors.ts";
import type { BuildInput, Engine, EngineReply, EngineRequest } from "./engine.ts";
import { AnswerValidationError, EndpointError } from "./errors.ts";
import { redact, redactDeep } from "./redact.ts";
import { send, type SendOptions, type SendResult } from "./transport.ts";
import type { ReplyCache } from "./cache.ts";

/** The request cache a case is asked through, and what its requests are cached under. */
export interface AskCache {
  /** The cache (offline or not). */
  store: ReplyCache;
  /** The endpoint's identity without credentials (part of the key). */
  endpoint: string;
  /** The model sent (part of the key). */
  model: string;
  /** The pass: 0 for the official one, 1, 2, … for stability passes (part of the key). */
  pass: number;
}

/** Options for `askCase`. */
export interface AskOptions {
  /** Bearer key. @default undefined */
  apiKey?: string | undefined;
  /** Per-request timeout in ms. @default 120000 */
  timeoutMs?: number | undefined;
  /** Extra attempts after the first for transient errors (429, 529, 5xx, timeout, network). @default 2 */
  retries?: number | undefined;
  /** First backoff delay in ms when the server gives no Retry-After; doubles per attempt. @default 250 */
  backoffMs?: number | undefined;
  /** Caller's abort signal. @default undefined */
  signal?: AbortSignal | undefined;
  /** The environment variable the key comes from, for the authentication message. @default undefined */
  keyVariable?: string | undefined;
  /** Most bytes of a reply's decoded body read; over it the case is `malformed`. @default 16777216 */
  maxReplyBytes?: number | undefined;
  /** The longest `Retry-After` delay honoured, in ms; a longer one is cut to this. @default 60000 */
  maxRetryAfterMs?: number | undefined;
  /**
   * The request cache: a cached reply answers without a request (its latency and attempts as
   * first recorded); an answered request's reply is stored. Offline, a request not cached is an
   * error of kind `cache_miss` and nothing is sent.
   * @default undefined (no cache)
   */
  cache?: AskCache | undefined;
}

/** A 2xx reply that is not a reply of the engine's wire format at all (a web page, another API). */
export interface NotAReply {
  /** HTTP status. */
  status: number;
  /** The `Content-Type` header, or null when absent. */
  contentType: string | null;
  /** The first 80 characters of the body (key redacted). */
  start: string;
}

/** What asking one case produced. */
export interface CaseOutcome {
  /** The parsed reply, or null on error. */
  reply: EngineReply | null;
  /** The final error (with the HTTP status of the failed answer), or null. */
  error: CaseError | null;
  /** True when the error means the run cannot go on (unsupported endpoint, authentication). */
  fatal: boolean;
  /** Attempts made (1 = no retry). */
  attempts: number;
  /** Latency of the last attempt that got a response, or null. */
  latencyMs: number | null;
  /** Set when the reply is not of the engine's wire format at all (the error is `malformed`). */
  notAReply?: NotAReply | undefined;
  /** True when the reply came from the request cache (nothing was sent). @default undefined */
  cached?: boolean | undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const id = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort(): void {
      clearTimeout(id);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Sends one engine request and parses the reply, retrying transient failures a bounded number of
 * times (honouring `Retry-After`). Malformed answers are not retried: a decision model is
 * deterministic, so the same question gets the same answer.
 *
 * @param engine The engine that built the request.
 * @param request The request.
 * @param questions The questions asked (for validation).
 * @param options Key, timeout, retries, signal.
 * @returns The outcome; never throws for endpoint or answer errors.
 * @throws {DOMException} When `signal` aborts.
 */
export async function askCase(
  engine: Engine,
  request: EngineRequest,
  questions: Record<string, Question>,
  options: AskOptions = {},
): Promise<CaseOutcome> {
  const { retries = 2, backoffMs = 250, signal } = options;
  let attempts = 0;
  let latencyMs: number | null = null;
  const secrets = [options.apiKey];
  const cache = options.cache;
  let key: string | null = null;
  if (cache !== undefined) {
    key = await cache.store.key({
      engine: engine.name,
      endpoint: cache.endpoint,
      model: cache.model,
      body: request.body,
      pass: cache.pass,
      // Hashed into the key only: extra headers may hold credentials.
      headers: request.headers,
      query: new URL(request.url).search,
    });
    const hit = await cache.store.get(key);
    if (hit !== null) {
      try {
        const reply = redactDeep(engine.parse(hit.body, questions), secrets);
        return {
          reply,
          error: null,
          fatal: false,
          attempts: hit.attempts,
          latencyMs: hit.latency_ms,
          cached: true,
        };
      } catch (error) {
        // A stored reply this engine no longer reads: asked again (or a miss, offline).
        if (!(error instanceof AnswerValidationError)) throw error;
      }
    }
    if (cache.store.offline) {
      return {
        reply: null,
        error: {
          kind: "cache_miss",
          message:
            `Cannot answer offline: the request cache in "${cache.store.dir}" holds no reply for this request (key ${
              key.slice(0, 12)
            }); run once with --cache and without --offline to fill it`,
          status: null,
        },
        fatal: false,
        attempts: 0,
        latencyMs: null,
      };
    }
  }
  // Built once per case, not per attempt.
  const sendOptions: SendOptions = {
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs,
    signal,
    ...(engine.classifyError ? { classifyError: engine.classifyError.bind(engine) } : {}),
    keyVariable: options.keyVariable,
    maxReplyBytes: options.maxReplyBytes,
    maxRetryAfterMs: options.maxRetryAfterMs,
  };
  for (;;) {
    attempts++;
    let result: SendResult | undefined;
    try {
      result = await send(request, sendOptions);
      latencyMs = result.latencyMs;
      // Every string of the reply (model, native, provider, response id) redacted here, so
      // nothing downstream — records, index, reports, pages, paths — ever sees the key.
      const reply = redactDeep(engine.parse(result.body, questions), secrets);
      if (cache !== undefined && key !== null) {
        await cache.store.put(key, {
          created_at: new Date().toISOString(),
          engine: engine.name,
          endpoint: cache.endpoint,
          model: cache.model,
          pass: cache.pass,
          status: result.status,
          content_type: result.contentType,
          latency_ms: result.latencyMs,
          attempts,
          body: result.body,
        }, secrets);
      }
      return { reply, error: null, fatal: false, attempts, latencyMs };
    } catch (error) {
      if (error instanceof AnswerValidationError) {
        const outcome: CaseOutcome = {
          reply: null,
          error: { kind: "malformed", message: redact(error.message, secrets), status: null },
          fatal: false,
          attempts,
          latencyMs,
        };
        if (error.notAReply && result !== undefined) {
          outcome.notAReply = {
            status: result.status,
            contentType: result.contentType,
            start: redact(result.body.slice(0, 80), secrets),
          };
        }
        return outcome;
      }
      if (!(error instanceof EndpointError)) throw error;
      if (error.transient && attempts <= retries) {
        await sleep(error.retryAfterMs ?? backoffMs * 2 ** (attempts - 1), signal);
        continue;
      }
      return {
        reply: null,
        error: { kind: error.kind, message: redact(error.message, secrets), status: error.status },
        fatal: error.fatal,
        attempts,
        latencyMs,
      };
    }
  }
}

/**
 * Builds a case's request, turning a limit the engine cannot meet (a `RangeError` from
 * `engine.build`, e.g. a state over pcdServer's 64 KiB context) into the case's outcome: error
 * kind `limit`, no attempt made, nothing sent and nothing truncated.
 *
 * @param engine The engine.
 * @param input The case's state, questions, model and state encoding.
 * @returns The request to send, or the `limit` outcome to record.
 * @throws {Error} Whatever else `build` throws (a bug, not a limit).
 * @example
 * ```ts
 * import { tryBuild } from "./ask.ts";
 * import { pcdEngine } from "./pcd.ts";
 * const built = tryBuild(pcdEngine("http://127.0.0.1:8080"), {
 *   state: "x".repeat(70_000),
 *   questions: { ok: { type: "noul", instructions: "Fine?" } },
 *   model: "default",
 *   stateEncoding: "json",
 * });
 * if (!("error" in built) || built.error?.kind !== "limit") throw new Error("expected a limit");
 * ```
 */
export function tryBuild(engine: Engine, input: BuildInput): EngineRequest | CaseOutcome {
  try {
    return engine.build(input);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return {
      reply: null,
      error: { kind: "limit", message: error.message, status: null },
      fatal: false,
      attempts: 0,
      latencyMs: null,
    };
  }
}
