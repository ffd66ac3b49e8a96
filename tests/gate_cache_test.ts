// `gate --cache` and `--offline` end to end: real `gate.ts` subprocesses over the first tickets of
// examples/tickets against a reference server on loopback whose `/metrics` counts the decision
// requests it received; the cache in a temp folder.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { runScript } from "./bench_cli_helpers.ts";
import { ticketRows, writeCsv } from "./_ticket_set.ts";

/** Decision requests the server received: answered (decodes) plus refused. */
async function requestsAt(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  return value("llamacpp:n_decode_total") + value("llamacpp:decision_requests_refused_total");
}

async function gateWorkflow(dir: string, url: string, cache = false): Promise<string> {
  await writeCsv(join(dir, "tickets.csv"), await ticketRows(24));
  const file = join(dir, cache ? "cached.yaml" : "workflow.yaml");
  await Deno.writeTextFile(
    file,
    `name: tickets
endpoint:
  baseUrl: ${url}
  model: decider
parallel: auto
dataset:
  path: tickets.csv
  id: ticket_id
  state: [tier, subject, message]
  lane: channel
questions:
  urgent:
    type: noul
    instructions: This ticket needs a reply today.
    gold: urgent
${cache ? "cache: true\n" : ""}`,
  );
  return file;
}

async function gate(file: string, out: string, args: string[]) {
  return await runScript("gate.ts", [file, "--question", "urgent", "--out", out, ...args]);
}

async function verdicts(dir: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(dir, "gate.jsonl"));
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

Deno.test("a second gate with the cache sends no request and writes the same verdicts", async () => {
  await using server = await startReferenceServer({ slots: 3 });
  const tmp = await Deno.makeTempDir({ prefix: "decibench-gate-cache-" });
  try {
    const file = await gateWorkflow(tmp, server.url);
    const cacheDir = join(tmp, "cache");
    const first = await gate(file, join(tmp, "first"), ["--cache-dir", cacheDir]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(await requestsAt(server.url), 24);
    assert.match(first.stderr, /0 answered from the cache, 24 stored/);
    assert.match(first.stderr, /parallel auto: 3 \(3 slots reported/);

    // `cache: true` in the workflow, the folder through XDG_CACHE_HOME: the same replies.
    await Deno.mkdir(join(tmp, "xdg"));
    await Deno.rename(cacheDir, join(tmp, "xdg", "decibench"));
    const second = await runScript(
      "gate.ts",
      [await gateWorkflow(tmp, server.url, true), "--question", "urgent", "--out", join(tmp, "2")],
      { XDG_CACHE_HOME: join(tmp, "xdg") },
    );
    assert.equal(second.code, 0, second.stderr);
    assert.equal(await requestsAt(server.url), 24, "the second gate sent requests");
    assert.match(second.stderr, /24 answered from the cache, 0 stored/);
    const a = await verdicts(join(tmp, "first"));
    const b = await verdicts(join(tmp, "2"));
    assert.equal(a.length, 24);
    assert.ok(a.every((r) => r.cached === undefined && r.verdict !== "undecided"));
    assert.ok(b.every((r) => r.cached === true));
    assert.deepEqual(b.map(({ cached: _, ...r }) => r), a);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("gate --offline with a cold cache sends nothing and names the undecided cases", async () => {
  await using server = await startReferenceServer({ slots: 2 });
  const tmp = await Deno.makeTempDir({ prefix: "decibench-gate-offline-" });
  try {
    const file = await gateWorkflow(tmp, server.url);
    const out = join(tmp, "cold");
    // parallel: auto would ask /props: offline, nothing is asked, not even that.
    const r = await gate(file, out, [
      "--offline",
      "--cache-dir",
      join(tmp, "empty"),
      "--limit",
      "5",
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(await requestsAt(server.url), 0);
    assert.doesNotMatch(r.stderr, /parallel auto/, "the server's slots were asked");
    const records = await verdicts(out);
    assert.equal(records.length, 5);
    assert.ok(records.every((v) => v.verdict === "undecided"));
    assert.ok(records.every((v) => (v.error as { kind: string }).kind === "cache_miss"));
    const ids = records.map((v) => v.id as string);
    assert.ok(
      r.stderr.includes(
        `Cannot answer 5 cases offline: the request cache holds no reply for them (${
          ids.join(", ")
        })`,
      ),
      r.stderr,
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
