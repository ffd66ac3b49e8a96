import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cacheKey,
  cacheStats,
  defaultCacheDir,
  parseAge,
  pruneCache,
  ReplyCache,
} from "./cache.ts";

const entry = (body: string) => ({
  created_at: "2026-01-01T00:00:00.000Z",
  engine: "systemone",
  endpoint: "http://127.0.0.1:8080/v1/systemone",
  model: "m",
  pass: 0,
  status: 200,
  content_type: "application/json",
  latency_ms: 12.5,
  attempts: 1,
  body,
});

Deno.test("a cache key changes with each of its parts", async () => {
  const base = { engine: "systemone", endpoint: "http://h:80/v1", model: "m", body: "{}", pass: 0 };
  const keys = new Set([
    await cacheKey(base),
    await cacheKey({ ...base, engine: "pcd" }),
    await cacheKey({ ...base, endpoint: "http://h:81/v1" }),
    await cacheKey({ ...base, model: "n" }),
    await cacheKey({ ...base, body: "{ }" }),
    await cacheKey({ ...base, pass: 1 }),
    await cacheKey({ ...base, headers: { "x-tenant": "a" } }),
    await cacheKey({ ...base, headers: { "x-tenant": "b" } }),
    await cacheKey({ ...base, query: "?deployment=a" }),
    await cacheKey({ ...base, query: "?deployment=b" }),
  ]);
  assert.equal(keys.size, 10);
  assert.match([...keys][0] as string, /^[0-9a-f]{64}$/);
});

Deno.test("a cache key ignores the order and the case of header names, not their values", async () => {
  const base = { engine: "systemone", endpoint: "http://h:80/v1", model: "m", body: "{}", pass: 0 };
  const key = await cacheKey({ ...base, headers: { "X-A": "1", "x-b": "2" } });
  assert.equal(await cacheKey({ ...base, headers: { "x-b": "2", "x-a": "1" } }), key);
  assert.notEqual(await cacheKey({ ...base, headers: { "x-b": "2", "x-a": "10" } }), key);
  assert.equal(await cacheKey({ ...base, headers: {}, query: "" }), await cacheKey(base));
});

Deno.test("a stored reply is read back; the key is redacted from the file", async () => {
  const dir = await Deno.makeTempDir();
  const cache = new ReplyCache(dir);
  const key = await cache.key({ engine: "e", endpoint: "x", model: "m", body: "b", pass: 0 });
  assert.equal(await cache.get(key), null);
  await cache.put(key, entry('{"echo":"sk-secret-42"}'), ["sk-secret-42"]);
  const hit = await cache.get(key);
  assert.equal(hit?.latency_ms, 12.5);
  assert.ok(!hit?.body.includes("sk-secret-42"));
  const file = join(dir, "replies", key.slice(0, 2), `${key}.json`);
  assert.ok(!(await Deno.readTextFile(file)).includes("sk-secret-42"));
  assert.deepEqual(cache.counts, { hits: 1, misses: 1, stored: 1 });
});

Deno.test("prune --older-than removes only replies older than the age, and stray temp files", async () => {
  const dir = await Deno.makeTempDir();
  const cache = new ReplyCache(dir);
  const keys = [];
  for (const body of ["a", "b", "c"]) {
    const key = await cache.key({ engine: "e", endpoint: "x", model: "m", body, pass: 0 });
    await cache.put(key, entry(body));
    keys.push(key);
  }
  const now = Date.UTC(2030, 0, 31);
  const day = 86_400_000;
  const path = (k: string) => join(dir, "replies", k.slice(0, 2), `${k}.json`);
  await Deno.utime(path(keys[0]!), new Date(now - 40 * day), new Date(now - 40 * day));
  await Deno.utime(path(keys[1]!), new Date(now - 31 * day), new Date(now - 31 * day));
  await Deno.utime(path(keys[2]!), new Date(now - 2 * day), new Date(now - 2 * day));
  await Deno.writeTextFile(`${path(keys[2]!)}.abcd1234.tmp`, "{");
  const before = await cacheStats(dir);
  assert.equal(before.entries, 3);
  assert.equal(before.oldest, new Date(now - 40 * day).toISOString());
  const pruned = await pruneCache(dir, { olderThanMs: parseAge("30d"), now });
  assert.deepEqual({ removed: pruned.removed, kept: pruned.kept }, { removed: 2, kept: 1 });
  assert.equal(await new ReplyCache(dir).get(keys[2]!).then((e) => e?.body), "c");
  assert.equal((await cacheStats(dir)).entries, 1);
  assert.equal((await pruneCache(dir)).removed, 1);
  assert.equal((await cacheStats(dir)).entries, 0);
});

Deno.test("the default folder honours XDG_CACHE_HOME, then HOME", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(defaultCacheDir(env({ XDG_CACHE_HOME: "/x", HOME: "/h" })), "/x/decibench");
  assert.equal(defaultCacheDir(env({ HOME: "/h" })), "/h/.cache/decibench");
  assert.throws(() => defaultCacheDir(env({})), /pass --cache-dir/);
  assert.throws(() => parseAge("30"), /Cannot read the age "30"/);
});
