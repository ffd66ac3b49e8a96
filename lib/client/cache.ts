/**
 * The request cache (`--cache`, `--offline`): each answered request's reply kept on disk under
 * the sha256 of its key — engine, endpoint identity (no credentials), model, the exact request
 * body, the request's headers and URL query string, and the pass (repeat index) — so asking the
 * same thing again reads the reply instead of sending it. Headers and query string enter only
 * the hash: they are written nowhere, so a credential among them never reaches a file.
 *
 * The store is one small JSON file per reply, sharded by the first two hex digits of the key's
 * sha256 (`<dir>/replies/ab/ab12….json`), each written to a temp file and renamed into place: a
 * reader never sees half a file, several runs (or CI jobs) may share one folder without a lock,
 * and a crash leaves at worst a stray temp file that `prune` removes. A file holds the reply
 * body (with the key redacted), its original latency and attempts, and what it answered (engine,
 * endpoint, model, pass); neither the request body nor any credential is stored, and the file
 * name is a hash.
 *
 * @module
 */
import { join } from "node:path";
import { sha256Hex, writeAtomic } from "../bytes.ts";
import { redact } from "./redact.ts";

/** The version of the cache's files; a new version keeps its replies in a new folder. */
const CACHE_LAYOUT = "replies";

/** What a request is cached under: everything that can change its reply, and nothing secret. */
export interface CacheKeyParts {
  /** Engine name (`systemone`, `pcd`, …). */
  engine: string;
  /** The endpoint's identity without credentials (`endpointIdentity`, or the embedded server's spec). */
  endpoint: string;
  /** The model sent. */
  model: string;
  /** The exact request body bytes, as text. */
  body: string;
  /** The pass: 0 for the official one, 1, 2, … for the stability passes of `--repeat`. */
  pass: number;
  /**
   * The request's headers other than authorization (the engine's and the endpoint's extra
   * `headers`); names compared case-insensitively, order ignored. Hashed, never stored.
   * @default {} (none)
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * The request URL's query string (`?a=1`, or empty). Hashed, never stored.
   * @default ""
   */
  query?: string | undefined;
}

/** One cached reply, as stored. */
export interface CachedReply {
  /** When it was stored (ISO 8601). */
  created_at: string;
  /** Engine name. */
  engine: string;
  /** Endpoint identity. */
  endpoint: string;
  /** Model sent. */
  model: string;
  /** Pass (repeat index). */
  pass: number;
  /** HTTP status of the reply (2xx). */
  status: number;
  /** The reply's `Content-Type`, or null. */
  content_type: string | null;
  /** Latency of the request that got the reply, ms. */
  latency_ms: number;
  /** Attempts the request took. */
  attempts: number;
  /** The reply body, with credentials redacted. */
  body: string;
}

/** Options for {@linkcode ReplyCache}. */
export interface ReplyCacheOptions {
  /**
   * Answer only from the cache: a request not in it is a case error of kind `cache_miss`, and
   * nothing is sent.
   * @default false
   */
  offline?: boolean | undefined;
}

/** A cache hit counter, a miss counter and what could not be written. */
export interface ReplyCacheCounts {
  /** Requests answered from the cache. */
  hits: number;
  /** Requests not found in the cache. */
  misses: number;
  /** Replies stored. */
  stored: number;
}

/**
 * The reply cache of one folder. Safe to share between concurrent requests and processes: reads
 * never lock, writes are atomic renames (the last writer of the same key wins with an equal
 * reply).
 */
export class ReplyCache {
  /** The cache's folder. */
  readonly dir: string;
  /** True when only cached replies may answer. */
  readonly offline: boolean;
  /** Hits, misses and stores in this process. */
  readonly counts: ReplyCacheCounts = { hits: 0, misses: 0, stored: 0 };
  /** The first error met writing a reply (the run goes on without caching it), or null. */
  writeError: string | null = null;

  /**
   * Opens a cache folder (created on the first write).
   *
   * @param dir The folder (`--cache-dir`, or {@linkcode defaultCacheDir}).
   * @param options Offline or not.
   */
  constructor(dir: string, options: ReplyCacheOptions = {}) {
    this.dir = dir;
    this.offline = options.offline === true;
  }

  /**
   * The key of a request: the sha256 of its parts.
   *
   * @param parts Engine, endpoint identity, model, body and pass.
   * @returns 64 hex digits.
   */
  key(parts: CacheKeyParts): Promise<string> {
    return cacheKey(parts);
  }

  /**
   * Reads a cached reply.
   *
   * @param key The request's key.
   * @returns The reply, or null when it is not cached (or its file is unreadable).
   */
  async get(key: string): Promise<CachedReply | null> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path(key));
    } catch {
      this.counts.misses++;
      return null;
    }
    try {
      const entry = JSON.parse(text) as CachedReply;
      if (typeof entry.body !== "string" || typeof entry.latency_ms !== "number") {
        throw new TypeError("not a cached reply");
      }
      this.counts.hits++;
      return entry;
    } catch {
      // A damaged file answers nothing; the next live reply replaces it.
      this.counts.misses++;
      return null;
    }
  }

  /**
   * Stores a reply under a key, atomically. A failure to write is kept in `writeError` and does
   * not throw: the run goes on, uncached.
   *
   * @param key The request's key.
   * @param entry The reply; its body is redacted of `secrets` before it is written.
   * @param secrets Credentials that must never reach the file.
   */
  async put(key: string, entry: CachedReply, secrets: readonly (string | undefined)[] = []) {
    const path = this.#path(key);
    const safe: CachedReply = {
      ...entry,
      endpoint: redact(entry.endpoint, secrets),
      body: redact(entry.body, secrets),
    };
    try {
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await writeAtomic(path, JSON.stringify(safe));
      this.counts.stored++;
    } catch (error) {
      this.writeError ??= `Cannot write the request cache in "${this.dir}": ${
        error instanceof Error ? error.message : String(error)
      }`;
    }
  }

  #path(key: string): string {
    return join(this.dir, CACHE_LAYOUT, key.slice(0, 2), `${key}.json`);
  }
}

/**
 * The key of a request: the sha256 of a JSON array of its parts (so no part can run into the
 * next one). The headers enter sorted by lower-cased name, so their order does not matter.
 *
 * @param parts Engine, endpoint identity, model, body, pass, headers and query string.
 * @returns 64 hex digits.
 */
export function cacheKey(parts: CacheKeyParts): Promise<string> {
  const headers = Object.entries(parts.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  return sha256Hex(
    JSON.stringify([
      2,
      parts.engine,
      parts.endpoint,
      parts.model,
      parts.pass,
      parts.body,
      headers,
      parts.query ?? "",
    ]),
  );
}

/**
 * The default cache folder: `$XDG_CACHE_HOME/decibench` when `XDG_CACHE_HOME` is set, else
 * `~/.cache/decibench`.
 *
 * @param env Reads environment variables. @default Deno.env.get
 * @returns The folder.
 * @throws {Error} When neither `XDG_CACHE_HOME` nor `HOME` (`USERPROFILE` on Windows) is set.
 */
export function defaultCacheDir(
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): string {
  const xdg = env("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "decibench");
  const home = env("HOME") || env("USERPROFILE");
  if (!home) {
    throw new Error(
      "Cannot find the request cache: neither XDG_CACHE_HOME nor HOME is set; pass --cache-dir DIR",
    );
  }
  return join(home, ".cache", "decibench");
}

/** What a cache folder holds. */
export interface CacheStats {
  /** The folder. */
  dir: string;
  /** Cached replies. */
  entries: number;
  /** Bytes of the replies' files. */
  bytes: number;
  /** When the oldest reply was stored (ISO 8601), or null when empty. */
  oldest: string | null;
  /** When the newest reply was stored (ISO 8601), or null when empty. */
  newest: string | null;
}

/** Each reply file of a cache folder with its size and time (its mtime: when it was stored). */
async function* replyFiles(
  dir: string,
): AsyncGenerator<{ path: string; size: number; time: number; temp: boolean }> {
  const root = join(dir, CACHE_LAYOUT);
  let shards: Deno.DirEntry[];
  try {
    shards = await Array.fromAsync(Deno.readDir(root));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const shard of shards) {
    if (!shard.isDirectory) continue;
    for await (const file of Deno.readDir(join(root, shard.name))) {
      if (!file.isFile) continue;
      const path = join(root, shard.name, file.name);
      const info = await Deno.stat(path).catch(() => null);
      if (info === null) continue;
      yield {
        path,
        size: info.size,
        time: info.mtime?.getTime() ?? 0,
        temp: file.name.endsWith(".tmp"),
      };
    }
  }
}

/**
 * Counts a cache folder's replies and their bytes.
 *
 * @param dir The cache folder.
 * @returns Entries, bytes, oldest and newest (an absent folder is empty).
 * @throws {Deno.errors.PermissionDenied} When the folder cannot be read.
 */
export async function cacheStats(dir: string): Promise<CacheStats> {
  let entries = 0;
  let bytes = 0;
  let oldest = Infinity;
  let newest = -Infinity;
  for await (const f of replyFiles(dir)) {
    if (f.temp) continue;
    entries++;
    bytes += f.size;
    oldest = Math.min(oldest, f.time);
    newest = Math.max(newest, f.time);
  }
  return {
    dir,
    entries,
    bytes,
    oldest: entries ? new Date(oldest).toISOString() : null,
    newest: entries ? new Date(newest).toISOString() : null,
  };
}

/** Options for {@linkcode pruneCache}. */
export interface PruneCacheOptions {
  /**
   * Remove only replies stored longer ago than this many ms (`--older-than 30d`).
   * @default undefined (every reply)
   */
  olderThanMs?: number | undefined;
  /** The time ages are measured from, ms since the epoch. @default Date.now() */
  now?: number | undefined;
}

/**
 * Removes a cache folder's replies (those older than `olderThanMs`, or all), and any stray temp
 * file an interrupted write left.
 *
 * @param dir The cache folder.
 * @param options The age limit and the time now.
 * @returns The replies removed, their bytes, and the replies kept.
 * @throws {Deno.errors.PermissionDenied} When a file cannot be removed.
 */
export async function pruneCache(
  dir: string,
  options: PruneCacheOptions = {},
): Promise<{ removed: number; bytes: number; kept: number }> {
  const now = options.now ?? Date.now();
  const cutoff = options.olderThanMs === undefined ? Infinity : now - options.olderThanMs;
  let removed = 0;
  let bytes = 0;
  let kept = 0;
  for await (const f of replyFiles(dir)) {
    if (f.temp || f.time < cutoff) {
      await Deno.remove(f.path).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
      if (!f.temp) {
        removed++;
        bytes += f.size;
      }
    } else kept++;
  }
  return { removed, bytes, kept };
}

/**
 * Parses an age such as `30d`, `12h`, `90m` or `45s` into ms.
 *
 * @param text The age: a positive number and a unit (`d`, `h`, `m`, `s`).
 * @returns Milliseconds.
 * @throws {RangeError} When the text is not such an age.
 * @example
 * ```ts
 * import { parseAge } from "./cache.ts";
 * if (parseAge("30d") !== 30 * 86_400_000) throw new Error("30 days");
 * ```
 */
export function parseAge(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([dhms])$/.exec(text.trim());
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
  if (match === null || Number(match[1]) <= 0) {
    throw new RangeError(
      `Cannot read the age "${text}": give a positive number and a unit, e.g. 30d, 12h, 90m or 45s`,
    );
  }
  return Number(match[1]) * unit[match[2] as keyof typeof unit];
}
