/**
 * `--parallel auto`: how many requests a server can work on at once, read from llama-server's
 * `GET /props` (`total_slots`) or `GET /slots` (one entry per slot), with a fixed fallback when
 * the server reports neither.
 *
 * @module
 */
import { redact, safeUrl } from "./redact.ts";

/** Requests in flight when the server does not say how many slots it has. */
export const FALLBACK_PARALLEL = 4;

/** The most requests in flight a run allows (the workflow schema's bound). */
export const MAX_PARALLEL = 256;

/** What a server said about its slots. */
export interface SlotsProbe {
  /** Slots the server reports, or null when it reports none. */
  slots: number | null;
  /** The URL that reported them (credentials stripped), or null. */
  from: string | null;
  /** Why no slot count was found (one clause per URL tried), or null when one was. */
  reason: string | null;
}

/** The concurrency `--parallel auto` chose, and a sentence saying why. */
export interface ParallelChoice {
  /** Requests in flight. */
  parallel: number;
  /** `server` when the server's slot count decided it, `fallback` otherwise. */
  source: "server" | "fallback";
  /** One line for the user, e.g. `parallel auto: 3 (total_slots of http://…/props)`. */
  message: string;
}

/** Options of {@linkcode probeSlots} and {@linkcode chooseParallel}. */
export interface ProbeSlotsOptions {
  /**
   * Bearer key, sent as `Authorization: Bearer <key>` (llama-server guards `/props` with it).
   *
   * @default {undefined} (no header)
   */
  apiKey?: string;
  /**
   * How long each probe request may take, in ms.
   *
   * @default {2000}
   */
  timeoutMs?: number;
  /**
   * Aborts the probe (Ctrl+C).
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/**
 * The server root an endpoint URL belongs to: the URL without its `/v1/…` route (or without a
 * trailing `/systemone`), where llama-server serves `/props`, `/slots` and `/metrics`.
 *
 * @param endpointUrl The endpoint URL a run sends to, e.g. `http://127.0.0.1:8080/v1/systemone`.
 * @returns The root without a trailing `/`, e.g. `http://127.0.0.1:8080`.
 * @throws {TypeError} When the URL cannot be parsed.
 * @example
 * ```ts
 * import { serverRoot } from "./slots.ts";
 * serverRoot("http://gpu-box:8084/v1/systemone"); // "http://gpu-box:8084"
 * ```
 */
export function serverRoot(endpointUrl: string): string {
  const url = new URL(endpointUrl);
  let path = url.pathname.replace(/\/+$/, "");
  const v1 = path.lastIndexOf("/v1/");
  if (v1 >= 0) path = path.slice(0, v1);
  else path = path.replace(/\/v1$/, "").replace(/\/systemone$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

async function getJson(
  url: string,
  options: ProbeSlotsOptions,
): Promise<{ json: unknown } | { problem: string }> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 2000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetch(url, { headers, signal });
    const text = await response.text();
    if (!response.ok) return { problem: `answered HTTP ${response.status}` };
    try {
      return { json: JSON.parse(text) };
    } catch {
      return { problem: "did not answer JSON" };
    }
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) {
      return { problem: `did not answer within ${options.timeoutMs ?? 2000} ms` };
    }
    const detail = redact(error instanceof Error ? error.message : String(error), [options.apiKey]);
    return { problem: `could not be reached (${detail.slice(0, 120)})` };
  }
}

function positiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
}

/**
 * Asks a server how many slots it has: `GET <root>/props` and its `total_slots`, else
 * `GET <root>/slots` and the length of its list. Never throws for what the server answers.
 *
 * @param endpointUrl The endpoint URL a run sends to (its server root is probed).
 * @param options Key, timeout per request, signal.
 * @returns The slot count and where it came from, or why none was found.
 * @throws {TypeError} When the URL cannot be parsed.
 * @throws {DOMException} When `options.signal` aborts.
 */
export async function probeSlots(
  endpointUrl: string,
  options: ProbeSlotsOptions = {},
): Promise<SlotsProbe> {
  const root = serverRoot(endpointUrl);
  const propsUrl = `${root}/props`;
  const props = await getJson(propsUrl, options);
  if ("json" in props) {
    const slots = (props.json as { total_slots?: unknown } | null)?.total_slots;
    if (positiveInteger(slots)) return { slots, from: safeUrl(propsUrl), reason: null };
  }
  const slotsUrl = `${root}/slots`;
  const list = await getJson(slotsUrl, options);
  if ("json" in list && Array.isArray(list.json) && list.json.length > 0) {
    return { slots: list.json.length, from: safeUrl(slotsUrl), reason: null };
  }
  const propsWhy = "json" in props ? "reports no total_slots" : props.problem;
  const slotsWhy = "json" in list ? "lists no slots" : list.problem;
  return {
    slots: null,
    from: null,
    reason: `${safeUrl(propsUrl)} ${propsWhy}, /slots ${slotsWhy}`,
  };
}

/**
 * Chooses the requests in flight for `--parallel auto`: the server's slot count (at most
 * {@linkcode MAX_PARALLEL}), else {@linkcode FALLBACK_PARALLEL}, with a line saying which. An
 * abort while asking (Ctrl+C) also gives the fallback; the caller's run stops anyway.
 *
 * @param endpointUrl The endpoint URL a run sends to, or its base URL.
 * @param options Key, timeout per request, signal.
 * @returns The choice and its message.
 * @throws {TypeError} When the URL cannot be parsed.
 * @example
 * ```ts
 * import { chooseParallel } from "./slots.ts";
 * // A server that reports three slots, as llama-server started with --parallel 3 does.
 * await using server = Deno.serve(
 *   { port: 0, hostname: "127.0.0.1", onListen() {} },
 *   () => Response.json({ total_slots: 3 }),
 * );
 * const choice = await chooseParallel(`http://127.0.0.1:${server.addr.port}/v1/systemone`);
 * if (choice.parallel !== 3) throw new Error(choice.message);
 * ```
 */
export async function chooseParallel(
  endpointUrl: string,
  options: ProbeSlotsOptions = {},
): Promise<ParallelChoice> {
  let probe: SlotsProbe;
  try {
    probe = await probeSlots(endpointUrl, options);
  } catch (error) {
    if (!options.signal?.aborted) throw error;
    probe = { slots: null, from: null, reason: "interrupted while asking the server" };
  }
  if (probe.slots === null) {
    return {
      parallel: FALLBACK_PARALLEL,
      source: "fallback",
      message: `parallel auto: ${FALLBACK_PARALLEL}, the fallback (${probe.reason})`,
    };
  }
  const parallel = Math.min(probe.slots, MAX_PARALLEL);
  const capped = parallel < probe.slots ? `, capped at ${MAX_PARALLEL}` : "";
  return {
    parallel,
    source: "server",
    message: `parallel auto: ${parallel} (${probe.slots} slots reported by ${probe.from}${capped})`,
  };
}
