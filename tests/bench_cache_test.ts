// `bench --cache` and `--offline` end to end: real `bench.ts` subprocesses against a reference
// server on loopback whose `/metrics` counts the decision requests it received.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { cacheStats } from "../lib/client/mod.ts";
import { readRunJson, runScript } from "./bench_cli_helpers.ts";

const KEY = "sk-cache-test-7f3a9c";

/** Decision requests the server received: answered (decodes) plus refused. */
async function requestsAt(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, {
    headers: { authorization: `Bearer ${KEY}` },
  })).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  return value("llamacpp:n_decode_total") + value("llamacpp:decision_requests_refused_total");
}

async function workflowFile(dir: string, url: string, cache = false): Promise<string> {
  const path = join(dir, cache ? "cached-by-workflow.ts" : "cached.ts");
  await Deno.writeTextFile(
    path,
    `export default {
  name: "cached",
  endpoint: { baseUrl: ${JSON.stringify(url)}, model: "decider", apiKeyEnv: "CACHE_TEST_KEY" },
  parallel: 4,
  cases: { limit: 30 },${cache ? "\n  cache: true," : ""}
};
`,
  );
  return path;
}

async function decisions(dir: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(dir, "decisions.jsonl"));
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l))
    .sort((a, b) => `${a.case}/${a.question}` < `${b.case}/${b.question}` ? -1 : 1);
}

async function bench(file: string, cacheHome: string, args: string[]) {
  const out = await Deno.makeTempDir();
  const r = await runScript("bench.ts", [file, "--no-db", "--out", out, ...args], {
    CACHE_TEST_KEY: KEY,
    XDG_CACHE_HOME: cacheHome,
  });
  return { ...r, out };
}

/** Every file under a folder, with its text. */
async function filesUnder(dir: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) { for (const [p, t] of await filesUnder(path)) found.set(p, t); }
    else found.set(path, await Deno.readTextFile(path));
  }
  return found;
}

Deno.test("a second run with --cache sends no request and writes the same records and figures", async () => {
  await using server = await startReferenceServer({ apiKey: KEY });
  const tmp = await Deno.makeTempDir();
  const file = await workflowFile(tmp, server.url);
  const cacheHome = join(tmp, "xdg");

  const first = await bench(file, cacheHome, ["--cache"]);
  assert.equal(first.code, 0, first.stderr);
  const afterFirst = await requestsAt(server.url);
  assert.equal(afterFirst, 30);
  assert.match(first.stderr, /0 answered from the cache, 30 stored/);

  // The second time the workflow's `cache: true` asks for the cache instead of the flag.
  const second = await bench(await workflowFile(tmp, server.url, true), cacheHome, []);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(await requestsAt(server.url), afterFirst, "the second run sent requests");
  assert.match(second.stderr, /30 answered from the cache, 0 stored/);

  const a = await decisions(first.out);
  const b = await decisions(second.out);
  assert.equal(a.length, 150);
  assert.ok(a.every((r) => r.cached === undefined));
  assert.ok(b.every((r) => r.cached === true));
  // Identical but for `cached`: latency and attempts are those first recorded.
  assert.deepEqual(b.map(({ cached: _, ...r }) => r), a);
  const [runA, runB] = [await readRunJson(first.out), await readRunJson(second.out)];
  assert.deepEqual(runB.summary, runA.summary);
  assert.equal(runA.sessions?.[0]?.requests, 30);
  assert.equal(runB.sessions?.[0]?.requests, 0);

  // The key is in no file name and no file of the cache (the workflow names its variable only).
  const files = await filesUnder(join(cacheHome, "decibench"));
  assert.equal(files.size, 30);
  for (const [path, text] of files) {
    assert.ok(!path.includes(KEY) && !text.includes(KEY), path);
  }
  assert.equal((await cacheStats(join(cacheHome, "decibench"))).entries, 30);

  // `cache stats` and `cache prune` on the same folder (found through XDG_CACHE_HOME).
  const cache = (args: string[]) =>
    runScript("cache.ts", [...args, "--json"], { XDG_CACHE_HOME: cacheHome });
  const stats = await cache(["stats"]);
  assert.equal(stats.code, 0, stats.stderr);
  assert.equal(JSON.parse(stats.lines[0]!).entries, 30);
  const young = await cache(["prune", "--older-than", "30d"]);
  assert.deepEqual(JSON.parse(young.lines[0]!).removed, 0);
  const all = await cache(["prune"]);
  assert.deepEqual(JSON.parse(all.lines[0]!).removed, 30);
  assert.equal((await cacheStats(join(cacheHome, "decibench"))).entries, 0);
});

Deno.test("--offline with a cold cache sends nothing and names the misses", async () => {
  await using server = await startReferenceServer({ apiKey: KEY });
  const tmp = await Deno.makeTempDir();
  const file = await workflowFile(tmp, server.url);
  const r = await bench(file, join(tmp, "cold"), ["--offline", "--parallel", "auto"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(await requestsAt(server.url), 0);
  assert.match(
    r.stderr,
    /Cannot answer 30 cases offline: the request cache holds no reply for them \(\S+/,
  );
  const records = await decisions(r.out);
  assert.ok(records.every((d) => (d.error as { kind: string }).kind === "cache_miss"));
  assert.ok(records.every((d) => d.attempts === 0));
});

Deno.test("--repeat keeps each pass's replies apart: the second run sends nothing either", async () => {
  await using server = await startReferenceServer({ apiKey: KEY });
  const tmp = await Deno.makeTempDir();
  const file = await workflowFile(tmp, server.url);
  const cacheDir = join(tmp, "own");
  const first = await bench(file, join(tmp, "unused"), ["--cache-dir", cacheDir, "--repeat", "2"]);
  assert.equal(first.code, 0, first.stderr);
  // Each pass asked every case: a pass never answered from another pass's entries.
  assert.equal(await requestsAt(server.url), 60);
  assert.equal((await cacheStats(cacheDir)).entries, 60);
  const second = await bench(file, join(tmp, "unused"), ["--cache-dir", cacheDir, "--repeat", "2"]);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(await requestsAt(server.url), 60);
});

Deno.test("the endpoint's extra headers and its base URL's query string are part of the key, never stored", async () => {
  await using server = await startReferenceServer({ apiKey: KEY });
  const tmp = await Deno.makeTempDir();
  const cacheDir = join(tmp, "cache");
  const write = async (tenant: string, query = "") => {
    const path = join(tmp, `${tenant}${query ? "-q" : ""}.ts`);
    await Deno.writeTextFile(
      path,
      `export default {
  name: "cached",
  endpoint: {
    baseUrl: ${JSON.stringify(server.url + query)},
    model: "decider",
    apiKeyEnv: "CACHE_TEST_KEY",
    headers: { "X-Tenant": ${JSON.stringify(tenant)} },
  },
  parallel: 2,
  cases: { limit: 6 },
};
`,
    );
    return path;
  };
  const run = async (file: string) => {
    const r = await bench(file, join(tmp, "unused"), ["--cache-dir", cacheDir]);
    assert.equal(r.code, 0, r.stderr);
    return await requestsAt(server.url);
  };
  const secret = "tenant-token-93b1e7";
  assert.equal(await run(await write(secret)), 6);
  assert.equal(await run(await write(secret)), 6, "the same header value is a hit");
  // Another value of the same header: a miss, asked and stored apart.
  assert.equal(await run(await write("tenant-token-other")), 12);
  assert.equal(await run(await write(secret, "?deployment=b")), 18, "another query string misses");
  assert.equal(await run(await write(secret, "?deployment=b")), 18);
  assert.equal((await cacheStats(cacheDir)).entries, 18);
  // The header's value and the query string are hashed into the key, written nowhere.
  for (const [path, text] of await filesUnder(cacheDir)) {
    for (const word of [secret, "deployment"]) {
      assert.ok(!path.includes(word) && !text.includes(word), `${word} in ${path}`);
    }
  }
});

Deno.test("--offline over several endpoints names each endpoint's misses", async () => {
  await using one = await startReferenceServer({ apiKey: KEY });
  await using two = await startReferenceServer({ apiKey: KEY });
  const tmp = await Deno.makeTempDir();
  const file = join(tmp, "two.ts");
  const endpoint = (name: string, url: string) =>
    `{ name: "${name}", baseUrl: ${
      JSON.stringify(url)
    }, model: "decider", apiKeyEnv: "CACHE_TEST_KEY" }`;
  await Deno.writeTextFile(
    file,
    `export default {
  name: "cached",
  endpoints: [${endpoint("left", one.url)}, ${endpoint("right", two.url)}],
  parallel: 2,
  cases: { limit: 4 },
};
`,
  );
  const r = await bench(file, join(tmp, "cold"), ["--offline"]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(await requestsAt(one.url), 0);
  assert.equal(await requestsAt(two.url), 0);
  for (const name of ["left", "right"]) {
    const ids = [...new Set((await decisions(join(r.out, name))).map((d) => d.case as string))];
    assert.equal(ids.length, 4);
    const line = r.stderr.split("\n").find((l) => l.includes(`${name}: Cannot answer 4 cases`));
    assert.ok(line, r.stderr);
    for (const id of ids) assert.ok(line.includes(id), `${id} in ${line}`);
    assert.match(line, /the request cache holds no reply for them/);
  }
});
