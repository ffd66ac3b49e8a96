/**
 * Server load from llama.cpp's Prometheus `/metrics`: parsing the text, and rates from successive
 * scrapes that clamp at 0 when a counter goes down (the server restarted).
 *
 * @module
 */

/** The llama.cpp metric names the server panel reads. */
export const LLAMACPP_METRICS = {
  /** Forward passes run (a decision request is one forward pass). */
  decodes: "llamacpp:n_decode_total",
  /** Input tokens processed. */
  promptTokens: "llamacpp:prompt_tokens_total",
  /** Requests being processed now. */
  processing: "llamacpp:requests_processing",
  /** Requests waiting for a slot. */
  deferred: "llamacpp:requests_deferred",
  /** Mean busy slots per forward pass. */
  busySlots: "llamacpp:n_busy_slots_per_decode",
} as const;

/** One successful scrape. */
export interface MetricsSample {
  /** When it was taken, in ms on the monitor's clock. */
  at: number;
  /** Sample values by metric name (series of one name with different labels are summed). */
  values: Record<string, number>;
}

/** What the server panel knows about the server's load. */
export interface ServerLoad {
  /** The `/metrics` URL scraped, or null when scraping is off. */
  url: string | null;
  /** `waiting` before the first scrape, `ok` after a good one, `unavailable` after a failed one. */
  status: "waiting" | "ok" | "unavailable";
  /** Why the last scrape failed, or null. */
  reason: string | null;
  /** The last good scrape, or null. */
  last: MetricsSample | null;
  /** Forward passes per second between the last two good scrapes (≈ requests/s), or null. */
  requestsPerSecond: number | null;
  /** Input tokens per second between the last two good scrapes, or null. */
  inputTokensPerSecond: number | null;
  /** Counter decreases seen (server restarts) since the monitor started. */
  restarts: number;
}

/**
 * Load before any scrape.
 *
 * @param url The `/metrics` URL, or null when there is none to scrape.
 * @returns Load with status `waiting` and no figures.
 */
export function emptyLoad(url: string | null): ServerLoad {
  return {
    url,
    status: "waiting",
    reason: null,
    last: null,
    requestsPerSecond: null,
    inputTokensPerSecond: null,
    restarts: 0,
  };
}

/**
 * Parses Prometheus text exposition into values by metric name. Comments and unparseable lines
 * are skipped; series of one name with different labels are summed.
 *
 * @param text The body of `GET /metrics`.
 * @returns Values by metric name.
 * @example
 * ```ts
 * import { parsePrometheus } from "./server_load.ts";
 * parsePrometheus("# TYPE x counter\nllamacpp:n_decode_total 12\n"); // { "llamacpp:n_decode_total": 12 }
 * ```
 */
export function parsePrometheus(text: string): Record<string, number> {
  const values: Record<string, number> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Za-z_:][A-Za-z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const name = match[1] as string;
    const text = match[3] as string;
    const value = text === "+Inf" ? Infinity : text === "-Inf" ? -Infinity : Number(text);
    if (Number.isNaN(value)) continue;
    values[name] = (values[name] ?? 0) + value;
  }
  return values;
}

/**
 * The rate of a counter between two samples, clamped at 0 when the counter went down (the server
 * restarted and its counters began again).
 *
 * @param before The earlier value, or undefined when the metric was missing.
 * @param after The later value, or undefined when the metric was missing.
 * @param seconds Seconds between the samples.
 * @returns Increase per second (0 after a decrease), or null when a value is missing or no time
 *   passed.
 * @example
 * ```ts
 * import { counterRate } from "./server_load.ts";
 * counterRate(10, 20, 2); // 5
 * counterRate(500, 3, 2); // 0 (restart)
 * ```
 */
export function counterRate(
  before: number | undefined,
  after: number | undefined,
  seconds: number,
): number | null {
  if (before === undefined || after === undefined || !(seconds > 0)) return null;
  return Math.max(0, after - before) / seconds;
}

/**
 * Adds a good scrape: rates come from it and the previous good scrape.
 *
 * @param load The load so far.
 * @param sample The new scrape.
 * @returns The new load (the input is not changed).
 */
export function addSample(load: ServerLoad, sample: MetricsSample): ServerLoad {
  const previous = load.last;
  let requestsPerSecond: number | null = null;
  let inputTokensPerSecond: number | null = null;
  let restarts = load.restarts;
  if (previous) {
    const seconds = (sample.at - previous.at) / 1000;
    const { decodes, promptTokens } = LLAMACPP_METRICS;
    requestsPerSecond = counterRate(previous.values[decodes], sample.values[decodes], seconds);
    inputTokensPerSecond = counterRate(
      previous.values[promptTokens],
      sample.values[promptTokens],
      seconds,
    );
    const went = (name: string) =>
      (sample.values[name] ?? Infinity) < (previous.values[name] ?? -Infinity);
    if (went(decodes) || went(promptTokens)) restarts++;
  }
  return {
    ...load,
    status: "ok",
    reason: null,
    last: sample,
    requestsPerSecond,
    inputTokensPerSecond,
    restarts,
  };
}

/**
 * Records a failed scrape. The rates are dropped; the next good scrape starts them again from
 * the last good one.
 *
 * @param load The load so far.
 * @param reason Why the scrape failed (shown in the server panel).
 * @returns The new load (the input is not changed).
 */
export function failedScrape(load: ServerLoad, reason: string): ServerLoad {
  return {
    ...load,
    status: "unavailable",
    reason,
    requestsPerSecond: null,
    inputTokensPerSecond: null,
  };
}

/**
 * The default `/metrics` URL for a server: llama-server serves it at the root, so a base URL
 * ending in `/v1` or `/v1/systemone` loses that part.
 *
 * @param baseUrl The server's base URL.
 * @returns The `/metrics` URL, without credentials, query or fragment.
 * @throws {TypeError} When the URL cannot be parsed.
 * @example
 * ```ts
 * import { metricsUrlFor } from "./server_load.ts";
 * metricsUrlFor("http://gpu-box:8084/v1"); // "http://gpu-box:8084/metrics"
 * ```
 */
export function metricsUrlFor(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `Cannot derive the metrics URL: "${baseUrl}" is not a URL; pass --metrics-url`,
    );
  }
  const path = url.pathname.replace(/\/+$/, "").replace(/\/v1(\/systemone)?$/, "");
  return `${url.protocol}//${url.host}${path}/metrics`;
}
