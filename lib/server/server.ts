/**
 * The reference server: a real HTTP server (`Deno.serve`) that speaks System One the way
 * llama-server does, answers with a pluggable predictor, and injects seeded faults for tests.
 *
 * @module
 */
import { type Dialect, llamaDialect } from "./_dialect.ts";
import { clefDialect } from "./clef.ts";
import { openRouterDialect } from "./openrouter.ts";
import { pcdDialect } from "./pcd.ts";
import {
  checkFaults,
  drawFault,
  type Fault,
  type FaultKind,
  type FaultSpec,
  jitterDistributions,
  jitterOf,
  parseFaults,
} from "./faults.ts";
import type { Predictor } from "./predictor.ts";
import { createPredictor } from "./predictors/mod.ts";
import { errorResponse, jsonText, resetResponse } from "./_responses.ts";
import { emptyStats, prometheusText, type ServerStats, snapshotStats } from "./stats.ts";
import { Slots } from "./_slots.ts";

/** Largest request body accepted (llama-server's default HTTP payload limit is larger; 1 MiB is plenty). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Where the server listens, passed to `onListen`. */
export interface ListenInfo {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The host name listened on. */
  hostname: string;
  /** The port listened on (the real one when 0 was asked). */
  port: number;
}

/** Options of {@linkcode startReferenceServer}. */
export interface ReferenceServerOptions {
  /**
   * TCP port; 0 picks a free one.
   *
   * @default {0}
   */
  port?: number | undefined;
  /**
   * Host name or address to listen on.
   *
   * @default {"127.0.0.1"}
   */
  hostname?: string | undefined;
  /**
   * A registered predictor's name (`uniform`, `oracle`, …) or a predictor object.
   *
   * @default {"uniform"}
   */
  predictor?: string | Predictor | undefined;
  /**
   * Faults to inject: a `--faults` spec (`"http500=0.05,http429=0.1:0"`) or parsed faults.
   *
   * @default {[]} (none)
   */
  faults?: string | FaultSpec | undefined;
  /**
   * Seed of the fault draws (a non-negative integer).
   *
   * @default {0}
   */
  seed?: number | undefined;
  /**
   * Delay in milliseconds before answering each decision request.
   *
   * @default {0}
   */
  latencyMs?: number | undefined;
  /**
   * Decision requests processed at once, like llama-server's `--parallel` slots: requests beyond
   * it wait in a first-come, first-served queue (counted by `llamacpp:requests_deferred`), and
   * `GET /props` reports it as `total_slots`.
   *
   * @default {undefined} (no limit: no request waits, and `/props` reports no `total_slots`)
   */
  slots?: number;
  /**
   * Decision requests the server takes before it stops as if killed: every later decision
   * request's connection is reset and the server stops listening, so clients then get network
   * errors (a replica lost mid-run, deterministically).
   *
   * @default {undefined} (never stops on its own)
   */
  stopAfter?: number | undefined;
  /**
   * When set, decision and metrics requests need `Authorization: Bearer <apiKey>` (401
   * otherwise); `/health` stays open. The key is never logged or echoed.
   *
   * @default {undefined} (no authentication)
   */
  apiKey?: string | undefined;
  /**
   * Largest request body in bytes; a larger one gets 413 `request_too_large_error`.
   *
   * @default {1048576} (1 MiB)
   */
  maxBodyBytes?: number | undefined;
  /**
   * Aborting it closes the server.
   *
   * @default {undefined}
   */
  signal?: AbortSignal | undefined;
  /**
   * Called once the server listens.
   *
   * @default {undefined} (silent)
   */
  onListen?: (info: ListenInfo) => void | undefined;
}

/** A running reference server. `await using` closes it. */
export interface ReferenceServer extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:41234` (System One at `${url}/v1/systemone`). */
  readonly url: string;
  /** The port listened on. */
  readonly port: number;
  /** The host name listened on. */
  readonly hostname: string;
  /** The predictor's name. */
  readonly predictor: string;
  /** Decision slots, or undefined when unlimited. */
  readonly slots: number | undefined;
  /** Stops listening, releases requests held by faults or latency, and waits for the rest. */
  close(): Promise<void>;
  /** Settles once the server has stopped: closed, or stopped on its own (`stopAfter`). */
  readonly stopped: Promise<void>;
  /** A snapshot of the counters. */
  stats(): ServerStats;
}

const HEADER_FAULTS: ReadonlySet<FaultKind> = new Set([
  "http500",
  "http503",
  "http429",
  "http404",
  "timeout",
  "reset",
]);

/**
 * Starts the reference server.
 *
 * Routes: `GET /health` → `{"status":"ok"}`; `POST /v1/systemone` (System One, validated like
 * llama-server); `GET /metrics` (Prometheus text, llama.cpp names); `GET /props` (`total_slots`
 * when `slots` is set) and `GET /slots` (one entry per slot; 501 without `slots`), as
 * llama-server has them. With `slots`, at most that many decision requests are processed at once
 * (their latency and answer) and the others wait in arrival order. Emulated hosted envelopes,
 * so each engine adapter is tested over real HTTP: `POST /v1/pcd/decode` (pcdServer),
 * `POST /api/v1/systemone` (OpenRouter's relay: `id`, `provider`, `usage.cost`) and
 * `POST /client/v4/accounts/<id>/ai/run/<model>` or `POST /ai/run/<model>` (Cloudflare's clef,
 * `{result, success, errors, messages}`); each answers its errors in its own envelope. Anything
 * else gets a llama-style 404. Each decision request that passes authentication draws its fault (if any)
 * in arrival order from `seed`: transport faults (`http*`, `timeout`, `reset`) replace the
 * answer whatever the body; answer faults (`malformed`, `truncated`, `out_of_range`,
 * `missing_option`) corrupt a valid request's answer. With several requests in flight, the
 * arrival order decides which request gets which draw.
 *
 * @param options Port, predictor, faults, seed, latency, key, signal.
 * @returns The running server.
 * @throws {RangeError} On a bad option (port, latency, seed, fault spec, empty key) or an unknown
 * predictor name.
 * @throws {Deno.errors.AddrInUse} When the port is taken.
 * @example
 * ```ts
 * import { startReferenceServer } from "./server.ts";
 * await using server = await startReferenceServer();
 * const reply = await fetch(`${server.url}/v1/systemone`, {
 *   method: "POST",
 *   body: JSON.stringify({ state: "a refund request", questions: { ok: { type: "noul", instructions: "Refund it?" } } }),
 * });
 * const body = await reply.json();
 * if (body.answers.ok.noul !== 0.5) throw new Error("expected the uniform answer");
 * ```
 */
export async function startReferenceServer(
  options: ReferenceServerOptions = {},
): Promise<ReferenceServer> {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(
      `Cannot start the reference server: port "${port}" is not an integer in 0-65535`,
    );
  }
  const hostname = options.hostname ?? "127.0.0.1";
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(
      `Cannot start the reference server: seed "${seed}" is not a non-negative integer`,
    );
  }
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) {
    throw new RangeError(
      `Cannot start the reference server: latency "${latencyMs}" ms is not a non-negative number`,
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new RangeError(
      `Cannot start the reference server: body limit "${maxBodyBytes}" is not a positive integer`,
    );
  }
  const slots = options.slots;
  if (slots !== undefined && (!Number.isSafeInteger(slots) || slots < 1)) {
    throw new RangeError(
      `Cannot start the reference server: slots "${slots}" is not a positive integer`,
    );
  }
  const stopAfter = options.stopAfter;
  if (stopAfter !== undefined && (!Number.isSafeInteger(stopAfter) || stopAfter < 0)) {
    throw new RangeError(
      `Cannot start the reference server: stop after "${stopAfter}" is not a non-negative integer`,
    );
  }
  if (options.apiKey !== undefined && options.apiKey === "") {
    throw new RangeError(
      "Cannot start the reference server: the API key is empty; omit it to disable authentication",
    );
  }
  const faults = typeof options.faults === "string"
    ? parseFaults(options.faults)
    : checkFaults(options.faults ?? []);
  const predictor = typeof options.predictor === "object"
    ? options.predictor
    : await createPredictor(options.predictor ?? "uniform");

  const handler = createHandler({
    predictor,
    faults,
    seed,
    latencyMs,
    maxBodyBytes,
    slots,
    stopAfter,
    onStop: () => void close(),
    expectedAuth: options.apiKey === undefined ? undefined : `Bearer ${options.apiKey}`,
  });
  const server = Deno.serve({
    port,
    hostname,
    onListen() {},
    onError: (error) => errorResponse(500, `Internal error: ${errorMessage(error)}`),
  }, handler.handle);
  const boundPort = server.addr.port;
  const url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${boundPort}`;

  let closing: Promise<void> | undefined;
  const { promise: stopped, resolve: markStopped } = Promise.withResolvers<void>();
  const close = (): Promise<void> => {
    closing ??= (async () => {
      options.signal?.removeEventListener("abort", onAbort);
      handler.release();
      await server.shutdown();
      markStopped();
    })();
    return closing;
  };
  const onAbort = (): void => void close();
  if (options.signal?.aborted) {
    await close();
  } else {
    options.signal?.addEventListener("abort", onAbort, { once: true });
  }
  options.onListen?.({ url, hostname, port: boundPort });
  return {
    url,
    port: boundPort,
    hostname,
    predictor: predictor.name,
    slots,
    close,
    stopped,
    stats: () => snapshotStats(handler.stats),
    [Symbol.asyncDispose]: close,
  };
}

interface HandlerConfig {
  predictor: Predictor;
  faults: FaultSpec;
  seed: number;
  latencyMs: number;
  maxBodyBytes: number;
  slots: number | undefined;
  stopAfter?: number | undefined;
  onStop?: (() => void) | undefined;
  expectedAuth: string | undefined;
}

interface Handler {
  handle: (request: Request) => Response | Promise<Response>;
  release: () => void;
  stats: ServerStats;
}

const SYSTEMONE_PATH = "/v1/systemone";

function createHandler(config: HandlerConfig): Handler {
  const stats = emptyStats();
  const slots = new Slots(config.slots);
  const released = new AbortController();
  const defaultModel = `decibench-reference-${config.predictor.name}`;
  const jitterSd = jitterOf(config.faults);
  let arrivals = 0;

  const authorized = (request: Request): boolean =>
    config.expectedAuth === undefined ||
    sameText(request.headers.get("authorization") ?? "", config.expectedAuth);

  const decide = async (
    request: Request,
    outcome: { answered: boolean },
    route: Route,
  ): Promise<Response> => {
    const { dialect } = route;
    if (!authorized(request)) return unauthorized(dialect);
    const sequence = arrivals++;
    if (config.stopAfter !== undefined && sequence >= config.stopAfter) {
      // Stopped as if killed: this connection is reset and the server stops listening.
      config.onStop?.();
      return resetResponse(256);
    }
    const fault = drawFault(config.faults, config.seed, sequence);
    if (fault) stats.faults[fault.kind] = (stats.faults[fault.kind] ?? 0) + 1;
    // A request beyond the free slots waits in line (llama-server's deferred requests) until a
    // slot frees or the server closes. A client that leaves meanwhile is still served in turn:
    // watching `request.signal` would make Deno.serve warn on every answered request.
    if (!slots.tryTake()) {
      stats.deferred++;
      stats.deferredTotal++;
      const taken = await slots.wait(released.signal);
      stats.deferred--;
      if (!taken) return dialect.error(503, "The server closed before a slot freed");
    }
    let response: Response | undefined;
    try {
      if (config.latencyMs > 0) await sleep(config.latencyMs, released.signal);
      const body = await readBody(request, config.maxBodyBytes);
      if (!fault || !HEADER_FAULTS.has(fault.kind)) {
        response = answer(body, fault, dialect, route, sequence, outcome);
      } else if (fault.kind !== "timeout") response = transportFault(fault, dialect);
    } finally {
      slots.release();
    }
    if (response) return response;
    // timeout: hold the request (without its slot) until the client gives up or the server closes.
    await waitForAbort(request.signal, released.signal);
    return dialect.error(503, "Injected fault: the request timed out");
  };

  const answer = (
    body: string | undefined,
    fault: Fault | undefined,
    dialect: Dialect,
    route: Route,
    sequence: number,
    outcome: { answered: boolean },
  ): Response => {
    if (body === undefined) {
      return dialect.error(
        413,
        `Request body is larger than the server's limit of ${config.maxBodyBytes} bytes`,
      );
    }
    if (body.trim() === "") {
      return dialect.error(
        400,
        "Request body is empty: send a JSON object with state and questions",
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      return dialect.error(400, `Request body is not valid JSON: ${errorMessage(error)}`);
    }
    const result = dialect.answer(json, {
      predictor: config.predictor,
      defaultModel,
      fault: fault?.kind,
      jitter: jitterSd > 0
        ? (distributions, questions) =>
          jitterDistributions(distributions, questions, {
            sd: jitterSd,
            seed: config.seed,
            index: sequence,
          })
        : undefined,
      routeModel: route.model,
      sequence,
    });
    if (!result.ok) return result.response;
    outcome.answered = true;
    stats.answered++;
    stats.decodes++;
    stats.busySlotsTotal += stats.processing - stats.deferred;
    stats.promptTokens += result.inputTokens;
    return jsonText(result.text);
  };

  const transportFault = (fault: Fault, dialect: Dialect): Response => {
    switch (fault.kind) {
      case "http500":
        return dialect.error(500, "Injected fault: internal server error");
      case "http503":
        return dialect.error(503, "Injected fault: the server is unavailable");
      case "http429":
        return dialect.error(429, "Injected fault: the decision queue is full, retry later", {
          "retry-after": String(fault.retryAfterSeconds ?? 1),
        });
      case "http404":
        return dialect.error(404, "File Not Found");
      default:
        return resetResponse(256);
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    stats.requests++;
    const path = pathOf(request.url);
    const route = routeOf(path);
    if (route) {
      if (request.method !== "POST") {
        return route.dialect.error(
          405,
          `Method ${request.method} is not allowed: use POST ${path}`,
          {
            allow: "POST",
          },
        );
      }
      stats.decisionRequests++;
      stats.processing++;
      const outcome = { answered: false };
      try {
        return await decide(request, outcome, route);
      } finally {
        stats.processing--;
        if (!outcome.answered) stats.refused++;
      }
    }
    if (path === "/health") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return methodNotAllowed(request, "GET");
      }
      return jsonText('{"status":"ok"}');
    }
    if (path === "/props" || path === "/slots") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return methodNotAllowed(request, "GET");
      }
      if (!authorized(request)) return unauthorized();
      return path === "/props" ? props(slots, defaultModel) : slotList(slots);
    }
    if (path === "/metrics") {
      if (request.method !== "GET" && request.method !== "HEAD") {
        return methodNotAllowed(request, "GET");
      }
      if (!authorized(request)) return unauthorized();
      return new Response(prometheusText(stats), {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      });
    }
    return errorResponse(404, "File Not Found");
  };

  return { handle, release: () => released.abort(), stats };
}

/** `GET /props`: what llama-server reports about itself that clients use (`total_slots`). */
function props(slots: Slots, model: string): Response {
  const body: Record<string, unknown> = {};
  if (slots.total !== undefined) body.total_slots = slots.total;
  body.model_path = model;
  body.build_info = "decibench reference server";
  return jsonText(JSON.stringify(body));
}

/** `GET /slots`: one entry per slot, busy ones first; 501 when slots are unlimited. */
function slotList(slots: Slots): Response {
  if (slots.total === undefined) {
    return errorResponse(501, "This server has no slots to list: start it with --slots N");
  }
  const list = Array.from({ length: slots.total }, (_, id) => ({
    id,
    is_processing: id < slots.busy,
  }));
  return jsonText(JSON.stringify(list));
}

function unauthorized(dialect: Dialect = llamaDialect): Response {
  return dialect.error(401, "Invalid API Key", { "www-authenticate": "Bearer" });
}

/** A decision route: its dialect, and the model its URL names (Cloudflare's run route). */
interface Route {
  dialect: Dialect;
  model: string | undefined;
}

const ROUTES: ReadonlyMap<string, Dialect> = new Map([
  [SYSTEMONE_PATH, llamaDialect],
  ["/api/v1/systemone", openRouterDialect],
  ["/v1/pcd/decode", pcdDialect],
]);

/** Cloudflare's run route, with or without the account prefix; the model may contain `/`. */
const CLEF_ROUTE = /^(?:\/client\/v4\/accounts\/[^/]+)?\/ai\/run\/(.+)$/;

/** The decision route a path names, or undefined. */
function routeOf(path: string): Route | undefined {
  const dialect = ROUTES.get(path);
  if (dialect) return { dialect, model: undefined };
  const match = CLEF_ROUTE.exec(path);
  if (match) {
    const raw = match[1] as string;
    let model = raw;
    try {
      model = decodeURIComponent(raw);
    } catch {
      // keep the raw text: the route answers "no such model"
    }
    return { dialect: clefDialect, model };
  }
  return undefined;
}

function methodNotAllowed(request: Request, allow: string): Response {
  return errorResponse(405, `Method ${request.method} is not allowed here: use ${allow}`, {
    allow,
  });
}

/** The path of a request URL without parsing the whole URL. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** Constant-time comparison of two strings (length is not hidden). */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Reads a body up to `limit` bytes.
 *
 * @returns The text, or `undefined` when it is larger than the limit.
 */
async function readBody(request: Request, limit: number): Promise<string | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > limit) {
      await request.body?.cancel().catch(() => {});
      return undefined;
    }
    return await request.text();
  }
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function waitForAbort(a: AbortSignal, b: AbortSignal): Promise<void> {
  if (a.aborted || b.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    function done(): void {
      a.removeEventListener("abort", done);
      b.removeEventListener("abort", done);
      resolve();
    }
    a.addEventListener("abort", done, { once: true });
    b.addEventListener("abort", done, { once: true });
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
