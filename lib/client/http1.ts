/**
 * A lean HTTP/1.1 client for the one request a run sends per case (a POST with a text
 * body, the reply read whole as text), over Deno's own TCP sockets with keep-alive connections
 * kept per origin.
 *
 * `fetch` spends about twice the client CPU per request on loopback (66–100 µs against 30–37 µs,
 * measured side by side), and that, more than the work of scoring, is what keeps a run at zero
 * latency behind a bare `fetch` loop. So a run gives `send` a pool of these connections, and
 * `send` takes this path for plain `http:` URLs; `fetch` serves everything else: `https:`, a
 * proxy set in the environment (`HTTP_PROXY`, `ALL_PROXY`), a redirect, `DECIBENCH_HTTP=fetch`,
 * and every caller that gives no pool.
 *
 * What it handles: `Content-Length` and `chunked` bodies, a body that ends with the connection,
 * interim `1xx` responses, `Connection: close` and HTTP/1.0 replies, and one retry on a new
 * connection when a kept-alive connection turns out closed before any byte of the reply came
 * back (the server dropped it while idle). Header values with CR or LF are refused, as `fetch`
 * refuses them.
 *
 * @module
 */
import { concatBytes } from "../bytes.ts";

/** A response read whole. */
export interface Http1Response {
  /** HTTP status. */
  status: number;
  /** Header values by lower-case name (repeated headers joined with ", "). */
  headers: Map<string, string>;
  /** Body, decoded as UTF-8 (invalid bytes replaced; a leading BOM dropped, as `fetch` does). */
  body: string;
}

/** The reply could not be read as HTTP/1.1 (a network error for the caller). */
export class Http1Error extends Error {
  /**
   * @param message What went wrong, without the URL.
   */
  constructor(message: string) {
    super(message);
    this.name = "Http1Error";
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const USER_AGENT = `Deno/${Deno.version.deno}`;
// A head larger than this is not a reply from a decision server.
const MAX_HEAD = 64 * 1024;

/** One TCP connection with its read buffer. */
class Connection {
  #buffer = new Uint8Array(16 * 1024);
  #start = 0;
  #end = 0;
  /** Bytes of the current reply read so far (0 until its first byte). */
  received = 0;
  /** Whether the current request is not the connection's first. */
  reused = false;
  closed = false;

  constructor(readonly conn: Deno.TcpConn) {}

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }

  async write(bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) off += await this.conn.write(bytes.subarray(off));
  }

  /** Reads more bytes into the buffer; false at the end of the stream. */
  async #fill(): Promise<boolean> {
    if (this.#start > 0 && this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buffer.length) {
      const live = this.#end - this.#start;
      const grown = live * 2 > this.#buffer.length
        ? new Uint8Array(this.#buffer.length * 2)
        : this.#buffer;
      grown.set(this.#buffer.subarray(this.#start, this.#end), 0);
      this.#buffer = grown;
      this.#start = 0;
      this.#end = live;
    }
    const n = await this.conn.read(this.#buffer.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    this.received += n;
    return true;
  }

  /** The next line ending in CRLF (without it), as Latin-1 text; null at the end of the stream. */
  async line(limit: number): Promise<string | null> {
    // Bytes after `#start` already searched (a fill may move the data, not this count).
    for (let searched = 0;;) {
      for (let i = this.#start + searched; i + 1 < this.#end; i++) {
        if (this.#buffer[i] === 13 && this.#buffer[i + 1] === 10) {
          const text = latin1(this.#buffer, this.#start, i);
          this.#start = i + 2;
          return text;
        }
      }
      searched = Math.max(0, this.#end - this.#start - 1);
      if (this.#end - this.#start > limit) throw new Http1Error("the reply's head is too long");
      if (!await this.#fill()) return null;
    }
  }

  /** Exactly `length` bytes (appended to `parts`); false when the stream ends first. */
  async take(length: number, parts: Uint8Array[]): Promise<boolean> {
    let left = length;
    while (left > 0) {
      if (this.#start === this.#end && !await this.#fill()) return false;
      const n = Math.min(left, this.#end - this.#start);
      parts.push(this.#buffer.slice(this.#start, this.#start + n));
      this.#start += n;
      left -= n;
    }
    return true;
  }

  /** Everything up to the end of the stream (appended to `parts`). */
  async rest(parts: Uint8Array[]): Promise<void> {
    for (;;) {
      if (this.#start < this.#end) {
        parts.push(this.#buffer.slice(this.#start, this.#end));
        this.#start = this.#end;
      }
      if (!await this.#fill()) return;
    }
  }

  /** Whether bytes beyond the reply are buffered (the connection cannot be reused then). */
  get leftover(): boolean {
    return this.#start < this.#end;
  }
}

function latin1(bytes: Uint8Array, from: number, to: number): string {
  let text = "";
  for (let i = from; i < to; i += 4096) {
    text += String.fromCharCode(...bytes.subarray(i, Math.min(to, i + 4096)));
  }
  return text;
}

/**
 * Whether a request to `url` may take this client: a plain `http:` URL without a proxy in the
 * environment, unless `DECIBENCH_HTTP=fetch`.
 *
 * @param url The request URL.
 * @returns True for this client, false for `fetch`.
 */
export function usesHttp1(url: string): boolean {
  if (!url.startsWith("http:")) return false;
  return directHttp ??= readDirect();
}
let directHttp: boolean | undefined;

function readDirect(): boolean {
  try {
    if (Deno.env.get("DECIBENCH_HTTP") === "fetch") return false;
    for (const name of ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]) {
      if (Deno.env.get(name)) return false;
    }
    return true;
  } catch {
    return false; // no permission to read the environment: fetch decides
  }
}

/**
 * Kept-alive connections, by origin, owned by one run: `close` ends them (a connection left open
 * would be a resource the process still holds).
 */
export class Http1Pool {
  #idle = new Map<string, Connection[]>();
  #open = new Set<Connection>();
  #closed = false;

  /**
   * Posts `body` to `url` and reads the reply whole.
   *
   * @param url A plain `http:` URL.
   * @param headers Request headers; `host`, `content-length`, `user-agent` and `accept` are set
   *   here unless given.
   * @param body The request body.
   * @param signal Aborts the request: its connection is closed.
   * @returns The status, headers and body.
   * @throws {Http1Error} When the reply is not HTTP/1.1 or the connection ends before it does.
   * @throws {TypeError} When a header name or value is not valid, or the pool is closed.
   * @throws {Error} What `Deno.connect` or the socket throws (refused, reset).
   */
  async post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<Http1Response> {
    const target = new URL(url);
    const message = requestBytes(target, headers, body);
    for (let attempt = 0;; attempt++) {
      if (signal.aborted) throw signal.reason;
      if (this.#closed) throw new TypeError("Cannot send: the connection pool is closed");
      const connection = await this.#connect(target, attempt === 0, signal);
      if (signal.aborted) {
        this.#drop(connection);
        throw signal.reason;
      }
      const abort = () => this.#drop(connection);
      signal.addEventListener("abort", abort, { once: true });
      try {
        const { response, keep } = await exchange(connection, message);
        if (keep && !connection.leftover && !this.#closed) {
          const list = this.#idle.get(target.host) ?? [];
          list.push(connection);
          this.#idle.set(target.host, list);
        } else {
          this.#drop(connection);
        }
        return response;
      } catch (error) {
        this.#drop(connection);
        if (signal.aborted) throw signal.reason;
        // A kept-alive connection the server closed while it sat idle: once more, on a new one.
        if (connection.reused && connection.received === 0 && attempt === 0) continue;
        throw error;
      } finally {
        signal.removeEventListener("abort", abort);
      }
    }
  }

  /** How many connections are open (for tests). */
  get openConnections(): number {
    return this.#open.size;
  }

  /** Closes every connection; requests in flight fail, later ones are refused. */
  close(): void {
    this.#closed = true;
    for (const connection of [...this.#open]) this.#drop(connection);
    this.#idle.clear();
  }

  /** Closes it (`using pool = new Http1Pool()`). */
  [Symbol.dispose](): void {
    this.close();
  }

  async #connect(url: URL, reuse: boolean, signal: AbortSignal): Promise<Connection> {
    if (reuse) {
      const kept = this.#idle.get(url.host)?.pop();
      if (kept !== undefined) {
        kept.reused = true;
        kept.received = 0;
        return kept;
      }
    }
    const port = url.port ? Number(url.port) : 80;
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    let conn: Deno.TcpConn;
    const connecting = Deno.connect({ hostname, port });
    try {
      conn = await abortable(connecting, signal);
    } catch (error) {
      if (signal.aborted) {
        // A connection made after all is closed at once.
        connecting.then((late) => late.close(), () => {});
        throw signal.reason;
      }
      // Worded as fetch words it ("tcp connect error: Connection refused (os error 111)").
      throw new Error(`tcp connect error: ${error instanceof Error ? error.message : error}`);
    }
    conn.setNoDelay(true);
    const connection = new Connection(conn);
    if (this.#closed) {
      connection.close();
      throw new TypeError("Cannot send: the connection pool is closed");
    }
    this.#open.add(connection);
    return connection;
  }

  #drop(connection: Connection): void {
    connection.close();
    this.#open.delete(connection);
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

function requestBytes(target: URL, headers: Record<string, string>, body: string): Uint8Array {
  let head = `POST ${target.pathname}${target.search} HTTP/1.1\r\n`;
  const given = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name) || /[\r\n\0]/.test(value)) {
      throw new TypeError(`Header "${name}" has an invalid name or value`);
    }
    given.add(name.toLowerCase());
    head += `${name}: ${value}\r\n`;
  }
  if (!given.has("host")) head += `host: ${target.host}\r\n`;
  if (!given.has("accept")) head += "accept: */*\r\n";
  if (!given.has("user-agent")) head += `user-agent: ${USER_AGENT}\r\n`;
  const payload = encoder.encode(body);
  const bytes = encoder.encode(`${head}content-length: ${payload.length}\r\n\r\n`);
  const message = new Uint8Array(bytes.length + payload.length);
  message.set(bytes);
  message.set(payload, bytes.length);
  return message;
}

async function exchange(
  connection: Connection,
  message: Uint8Array,
): Promise<{ response: Http1Response; keep: boolean }> {
  await connection.write(message);
  for (;;) {
    const status = await connection.line(MAX_HEAD);
    if (status === null) {
      throw new Http1Error(
        connection.received === 0
          ? "the server closed the connection without a reply"
          : "the server closed the connection in the reply's head",
      );
    }
    const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(status);
    if (match === null) {
      throw new Http1Error(`the reply is not HTTP/1.1 (it starts "${status.slice(0, 40)}")`);
    }
    const code = Number(match[2]);
    const headers = new Map<string, string>();
    for (;;) {
      const line = await connection.line(MAX_HEAD);
      if (line === null) {
        throw new Http1Error("the server closed the connection in the reply's head");
      }
      if (line === "") break;
      const colon = line.indexOf(":");
      if (colon <= 0) {
        throw new Http1Error(`the reply has a malformed header line "${line.slice(0, 40)}"`);
      }
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      const before = headers.get(name);
      headers.set(name, before === undefined ? value : `${before}, ${value}`);
    }
    if (code >= 100 && code < 200) continue; // an interim reply: the real one follows
    const connectionHeader = (headers.get("connection") ?? "").toLowerCase();
    let keep = match[1] === "1"
      ? !/\bclose\b/.test(connectionHeader)
      : /\bkeep-alive\b/.test(connectionHeader);
    const parts: Uint8Array[] = [];
    const encoding = (headers.get("transfer-encoding") ?? "").toLowerCase();
    const length = headers.get("content-length");
    if (code === 204 || code === 304) {
      // no body
    } else if (/\bchunked\s*$/.test(encoding)) {
      await chunked(connection, parts);
    } else if (length !== undefined && encoding === "") {
      const size = /^\d+$/.test(length) ? Number(length) : NaN;
      if (!Number.isSafeInteger(size)) {
        throw new Http1Error(`the reply's content-length "${length.slice(0, 40)}" is not a number`);
      }
      if (!await connection.take(size, parts)) {
        throw new Http1Error("the server closed the connection before the reply's body ended");
      }
    } else {
      await connection.rest(parts);
      keep = false;
    }
    return { response: { status: code, headers, body: decode(parts) }, keep };
  }
}

async function chunked(connection: Connection, parts: Uint8Array[]): Promise<void> {
  const ended = () =>
    new Http1Error("the server closed the connection before the reply's chunked body ended");
  for (;;) {
    const line = await connection.line(4096);
    if (line === null) throw ended();
    const size = parseInt(line.split(";")[0]!.trim(), 16);
    if (!Number.isSafeInteger(size) || size < 0 || !/^[0-9a-fA-F]+/.test(line.trim())) {
      throw new Http1Error(`the reply's chunk size "${line.slice(0, 40)}" is not hexadecimal`);
    }
    if (size === 0) {
      for (;;) { // trailers, then the empty line
        const trailer = await connection.line(MAX_HEAD);
        if (trailer === null) throw ended();
        if (trailer === "") return;
      }
    }
    if (!await connection.take(size, parts)) throw ended();
    const end = await connection.line(4096);
    if (end === null) throw ended();
    if (end !== "") throw new Http1Error("the reply's chunk does not end where its size says");
  }
}

function decode(parts: readonly Uint8Array[]): string {
  return decoder.decode(parts.length === 1 ? parts[0] : concatBytes(parts));
}
