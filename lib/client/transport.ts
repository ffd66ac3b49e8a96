/**
 * Sends one request over HTTP: timeout, bearer key, error classification. No retries here —
 * retries are explicit and recorded by the caller (`askCase`).
 *
 * @module
 */
import type { EngineErrorInfo, EngineRequest } from "./engine.ts";
import { EndpointError, kindForStatus } from "./errors.ts";
import { redact, safeUrl } from "./redact.ts";

/** Options for `send`. */
export interface SendOptions {
  /** Bearer key; sent as `Authorization: Bearer <key>` only when set. @default undefined */
  apiKey?: string | undefined;
  /** Per-request timeout in ms. @default 120000 */
  timeoutMs?: number | undefined;
  /** Caller's abort signal (Ctrl+C). @default undefined */
  signal?: AbortSignal | undefined;
  /**
   * Reads an engine-specific error envelope (`Engine.classifyError`): kind, message, retry.
   * @default undefined (kind from the HTTP status, message from `error.message`, `errors[0].message` or `message`)
   */
  classifyError?: (status: number, body: string) => EngineErrorInfo | undefined;
  /**
   * The environment variable the key comes from (the workflow's `apiKeyEnv`), named in the
   * message when the server refuses the request (401/403).
   * @default undefined (the workflow names no key variable)
   */
  keyVariable?: string | undefined;
  /**
   * Most bytes of a reply's body read, after decompression; a longer reply is an error of kind
   * `malformed` naming the limit, not retried.
   * @default 16777216 (16 MiB, {@linkcode DEFAULT_MAX_REPLY_BYTES})
   */
  maxReplyBytes?: number | undefined;
  /**
   * The longest delay a server's `Retry-After` header may ask for, in ms; a longer one is cut
   * to this.
   * @default 60000 ({@linkcode DEFAULT_MAX_RETRY_AFTER_MS})
   */
  maxRetryAfterMs?: number | undefined;
}

/** The default cap on a server's `Retry-After` delay: 60 s. */
export const DEFAULT_MAX_RETRY_AFTER_MS: number = 60_000;

/** The default limit on a reply's decoded body: 16 MiB. */
export const DEFAULT_MAX_REPLY_BYTES: number = 16 * 1024 * 1024;

/** A reply body over the limit: thrown by `readLimited`, caught by `send`. */
class ReplyTooLarge extends Error {
  /** The reply's HTTP status. */
  readonly status: number;

  /** @param status The reply's HTTP status. */
  constructor(status: number) {
    super("reply over the limit");
    this.status = status;
  }
}

/**
 * Reads a body as a stream, counting decoded bytes, and stops reading (cancelling the stream) as
 * soon as it passes the limit: a compressed bomb or an endless body never fills the memory.
 */
async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  let reader: ReadableStreamBYOBReader;
  try {
    reader = response.body.getReader({ mode: "byob" });
  } catch {
    return await readChunks(response, maxBytes); // not a byte stream
  }
  // A reader of our own buffers, filled block by block: the default reader hands out a fresh chunk
  // for every read (4 KiB of a decompressed reply), each with its own backing store, so a reply
  // read to the limit left hundreds of MB of garbage behind at a few requests in flight.
  // Decoded to text only once the whole reply is in: a reply over the limit never becomes a string.
  const full: Uint8Array[] = [];
  let block = new Uint8Array(READ_BLOCK);
  let filled = 0;
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read(block.subarray(filled));
    // The block was handed over to the stream; it comes back as the view's buffer.
    if (value !== undefined) block = new Uint8Array(value.buffer);
    if (done || value === undefined) break;
    filled += value.byteLength;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ReplyTooLarge(response.status);
    }
    if (filled === block.byteLength) {
      full.push(block);
      block = new Uint8Array(READ_BLOCK);
      filled = 0;
    }
  }
  if (full.length === 0) return new TextDecoder().decode(block.subarray(0, filled));
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const b of full) {
    bytes.set(b, at);
    at += b.byteLength;
  }
  bytes.set(block.subarray(0, filled), at);
  return new TextDecoder().decode(bytes);
}

/** Bytes read at a time into one block. */
const READ_BLOCK = 64 * 1024;

/** {@linkcode readLimited} for a body that is not a byte stream. */
async function readChunks(response: Response, maxBytes: number): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ReplyTooLarge(response.status);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * A byte count as a short text: whole MiB when it is one, else bytes.
 *
 * @param bytes Byte count.
 * @returns E.g. "16 MiB" or "1000 bytes".
 */
function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

/** A 2xx response. */
export interface SendResult {
  /** HTTP status. */
  status: number;
  /** Body text. */
  body: string;
  /** The `Content-Type` header, or null when absent. */
  contentType: string | null;
  /** Milliseconds from sending to the end of the body. */
  latencyMs: number;
}

/**
 * Parses a `Retry-After` header (seconds or an HTTP date) into ms, capped (60 s by default).
 *
 * @param value Header value.
 * @param now Current time in ms since the epoch.
 * @param maxMs The longest delay returned. @default 60000
 * @returns Delay in ms, or null when absent or unparseable.
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
  maxMs: number = DEFAULT_MAX_RETRY_AFTER_MS,
): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(ms, 0), maxMs);
}

/**
 * The reason a request got no response, without the URL Deno repeats in it: fetch's own message
 * is "fetch failed", its cause "error sending request for url (…): client error (Connect): tcp
 * connect error: Connection refused (os error 111)".
 */
function networkDetail(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : "";
  const text = (cause || error.message).replace(/^error sending request for url \([^)]*\): /, "");
  const connect = text.lastIndexOf("(Connect): ");
  return connect >= 0 ? text.slice(connect + "(Connect): ".length) : text;
}

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body);
    const message = parsed?.error?.message ?? parsed?.errors?.[0]?.message ?? parsed?.message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON: quote the text
  }
  return body;
}

/**
 * Sends a request and returns a 2xx body, or throws an `EndpointError` whose message never
 * contains the key or URL credentials.
 *
 * @param request The engine's request.
 * @param options Key, timeout, signal.
 * @returns Status, body and latency of a 2xx reply.
 * @throws {EndpointError} On a non-2xx status, timeout or network failure.
 * @throws {DOMException} `AbortError` when the caller's signal aborts.
 */
export async function send(request: EngineRequest, options: SendOptions = {}): Promise<SendResult> {
  const { apiKey, timeoutMs = 120_000, signal, maxReplyBytes = DEFAULT_MAX_REPLY_BYTES } = options;
  const headers: Record<string, string> = { ...request.headers };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  if (signal?.aborted) throw signal.reason;
  // One controller per request, its timer cleared and its listener removed when the request ends:
  // `AbortSignal.any([signal, AbortSignal.timeout(t)])` keeps every request's signals reachable
  // from the run's long-lived signal (about 450 bytes a request, measured in Deno 2.9: 130 MB over
  // 300,000 requests) and each timer alive for its whole timeout.
  const perRequest = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    perRequest.abort(new DOMException("The request timed out", "TimeoutError"));
  }, timeoutMs);
  const onAbort = () => perRequest.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const started = performance.now();
  let response: Response;
  let body: string;
  try {
    response = await fetch(request.url, {
      method: "POST",
      headers,
      body: request.body,
      signal: perRequest.signal,
    });
    body = await readLimited(response, maxReplyBytes);
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    const where = safeUrl(request.url);
    if (error instanceof ReplyTooLarge) {
      throw new EndpointError(
        "malformed",
        `Cannot read the reply from "${where}": it is over the ${
          sizeText(maxReplyBytes)
        } limit on a reply (after decompression); raise maxReplyBytes in the workflow's endpoint or pass --max-reply-mb if the server's replies are that large`,
        { status: error.status, transient: false },
      );
    }
    if (timedOut) {
      throw new EndpointError("timeout", `No answer from "${where}" within ${timeoutMs} ms`);
    }
    const detail = redact(networkDetail(error), [apiKey]);
    throw new EndpointError("network", `Cannot reach "${where}": ${detail.slice(0, 200)}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  const latencyMs = performance.now() - started;
  if (response.ok) {
    const contentType = response.headers.get("content-type");
    return { status: response.status, body, contentType, latencyMs };
  }
  const where = safeUrl(request.url);
  const info = options.classifyError?.(response.status, body);
  // 402: the account has no credit left (OpenRouter); no later request can succeed either.
  const noCredit = response.status === 402 && info?.kind === undefined;
  const kind = info?.kind ?? (noCredit ? "rate_limited" : kindForStatus(response.status));
  const quoted = redact(info?.message ?? errorText(body), [apiKey]).slice(0, 200);
  let message = `HTTP ${response.status} from "${where}": ${quoted}`;
  if (noCredit) {
    message = `Cannot continue with "${where}" (HTTP 402): ${quoted}; the account has no credit ` +
      `left — add credit, then resume the run`;
  } else if (kind === "unsupported_endpoint") {
    message = info?.message !== undefined
      ? `Cannot benchmark "${where}" (HTTP ${response.status}): ${quoted}`
      : `Cannot benchmark "${where}": the server does not serve decision models ` +
        `(HTTP ${response.status}); llama.cpp's llama-server exposes /v1/systemone from b11361 ` +
        `with a decision model loaded — check --base-url and the server version`;
  } else if (kind === "authentication") {
    message = authenticationMessage(where, response.status, quoted, {
      sent: apiKey !== undefined && apiKey !== "",
      keyVariable: options.keyVariable,
    });
  }
  throw new EndpointError(kind, message, {
    status: response.status,
    transient: info?.transient,
    fatal: noCredit ? true : info?.fatal,
    retryAfterMs: parseRetryAfter(
      response.headers.get("retry-after"),
      Date.now(),
      options.maxRetryAfterMs,
    ),
  });
}

/**
 * The message for a refused request (401/403): which key variable was used or is missing, and
 * what to do. The server's own words follow in parentheses (already redacted).
 *
 * @param where The URL without credentials.
 * @param status The HTTP status.
 * @param quoted The server's message, redacted and clipped.
 * @param key Whether a key was sent and the variable it comes from.
 * @returns The message.
 */
function authenticationMessage(
  where: string,
  status: number,
  quoted: string,
  key: { sent: boolean; keyVariable: string | undefined },
): string {
  const server = quoted.trim() ? ` (the server said: ${JSON.stringify(quoted.trim())})` : "";
  const name = key.keyVariable;
  const what = name === undefined
    ? key.sent
      ? `the API key was rejected (HTTP ${status}); pass a key the server accepts`
      : `no API key was sent (HTTP ${status}): the workflow names no key variable; name one in ` +
        `endpoint.apiKeyEnv and export it with the server's key`
    : key.sent
    ? `${name} was rejected (HTTP ${status}); set ${name} to a key the server accepts`
    : `${name} is not set (HTTP ${status}); export ${name} with the server's API key`;
  return `Cannot authenticate to "${where}": ${what}${server}`;
}
