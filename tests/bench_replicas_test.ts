// `endpoint.replicas`: one run spread over two reference servers of one model on loopback, with
// different slots and latencies; the second takes 20 decision requests and then stops as if
// killed (`stopAfter`, so nothing depends on timing). Each replica's slots come from its /props;
// the dead one is left out after failing 5 times in a row and its cases are asked again on the
// other, so the run completes; run.json's per-replica counts equal what each server counted
// (the first read over HTTP at its /metrics, the second, gone, from its counters), and the
// reports show the replicas. Then: the `--repeat` stability passes spread over the replicas and
// counted with them, and a replica's malformed replies counted as errors only.
import assert from "node:assert/strict";
import { join } from "node:path";
import { startReferenceServer } from "../lib/server/mod.ts";
import { readRunJson, runScript } from "./bench_cli_helpers.ts";

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} in ${text}`);
  return Number(line.split(" ")[1]);
}

Deno.test("a run over two replicas, one killed mid-run, completes and counts each replica", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-replicas-" });
  // The replica that stops answers faster, so it surely takes its 20 requests before the end.
  await using a = await startReferenceServer({ predictor: "fitted", slots: 3, latencyMs: 3 });
  await using b = await startReferenceServer({ predictor: "fitted", slots: 1, stopAfter: 20 });
  try {
    const workflow = join(tmp, "replicas.workflow.ts");
    await Deno.writeTextFile(
      workflow,
      `export default ${
        JSON.stringify({
          name: "replicas",
          endpoint: { replicas: [a.url, b.url], model: "decibench-reference", retries: 2 },
          parallel: "auto",
        })
      };\n`,
    );
    const dir = join(tmp, "run");
    const bench = await runScript("bench.ts", [workflow, "--out", dir, "--no-db"]);
    assert.equal(bench.code, 0, bench.stderr);
    assert.match(bench.stderr, /replicas: 2 servers, 4 requests in flight/);
    assert.match(bench.stderr, /left out after failing 5 times in a row; 1 left/);
    const run = await readRunJson(dir);
    assert.equal(run.status, "completed");
    assert.equal(run.summary!.answered, 2000);
    const [ra, rb] = run.replicas!;
    assert.ok(ra && rb);
    assert.deepEqual([ra.slots, rb.slots], [3, 1], "slots from each server's /props");
    // The live replica: every request it was sent, it answered, and it counted them.
    const decodesA = await metric(a.url, "llamacpp:n_decode_total");
    assert.equal(ra.requests, decodesA);
    assert.equal(ra.answered, decodesA);
    assert.equal(ra.errors, 0);
    assert.equal(ra.excluded, false);
    // The killed replica answered exactly what it took; what failed there was asked again.
    assert.equal(rb.answered, 20);
    assert.equal(b.stats().decodes, 20);
    assert.equal(rb.excluded, true);
    assert.ok(rb.errors >= 5, `${rb.errors} errors`);
    assert.equal(rb.requests, rb.answered + rb.errors);
    assert.equal(ra.answered + rb.answered, 400, "every case answered once");
    assert.ok(ra.latency !== null && rb.latency !== null);
    const md = await Deno.readTextFile(join(dir, "report.md"));
    assert.match(md, /## Replicas/);
    assert.ok(md.includes(`| ${rb.url} | 1 | ${rb.requests} | 20 | ${rb.errors} |`), md);
    assert.match(await Deno.readTextFile(join(dir, "report.html")), /<h2>Replicas<\/h2>/);

    // --parallel N: N in flight on each replica, whatever their slots.
    await using c = await startReferenceServer({ predictor: "fitted", slots: 5 });
    const both = join(tmp, "both.workflow.ts");
    await Deno.writeTextFile(
      both,
      `export default ${
        JSON.stringify({
          name: "replicas",
          endpoint: { replicas: [a.url, c.url], model: "decibench-reference" },
        })
      };\n`,
    );
    const fixed = join(tmp, "fixed");
    const second = await runScript("bench.ts", [
      both,
      "--parallel",
      "2",
      "--limit",
      "40",
      "--out",
      fixed,
      "--no-db",
    ]);
    assert.equal(second.code, 0, second.stderr);
    const replicas = (await readRunJson(fixed)).replicas!;
    assert.deepEqual(replicas.map((r) => r.slots), [2, 2]);
    assert.equal(replicas.reduce((n, r) => n + r.answered, 0), 40);
    assert.equal(replicas[1]!.requests, c.stats().decisionRequests);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

async function replicasWorkflow(dir: string, urls: string[]): Promise<string> {
  const file = join(dir, `replicas-${crypto.randomUUID().slice(0, 6)}.workflow.ts`);
  await Deno.writeTextFile(
    file,
    `export default ${
      JSON.stringify({
        name: "replicas",
        endpoint: { replicas: urls, model: "decibench-reference" },
      })
    };\n`,
  );
  return file;
}

Deno.test("--repeat spreads its stability passes over the replicas, counted in run.json", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-replicas-repeat-" });
  await using a = await startReferenceServer({ predictor: "fitted", slots: 2 });
  await using b = await startReferenceServer({ predictor: "fitted", slots: 2 });
  try {
    const dir = join(tmp, "run");
    const r = await runScript("bench.ts", [
      await replicasWorkflow(tmp, [a.url, b.url]),
      "--parallel",
      "2",
      "--limit",
      "12",
      "--repeat",
      "3",
      "--out",
      dir,
      "--no-db",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const run = await readRunJson(dir);
    assert.equal(run.stability?.complete, true);
    const [ra, rb] = run.replicas!;
    assert.ok(ra && rb);
    // Every pass's requests, each counted at the replica that got it: 12 cases × 3 passes.
    assert.equal(ra.requests, a.stats().decisionRequests);
    assert.equal(rb.requests, b.stats().decisionRequests);
    assert.equal(ra.requests + rb.requests, 36);
    assert.equal(ra.answered + rb.answered, 36);
    // A pass starts 4 requests at once over 2 + 2 slots: each pass reaches the second replica.
    assert.ok(rb.requests >= 3, `${rb.requests} requests at the second replica`);
    for (const x of [ra, rb]) assert.equal(x.requests, x.answered + x.errors);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a replica's malformed replies are errors, not answers: answered and errors are disjoint", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-replicas-malformed-" });
  await using a = await startReferenceServer({ predictor: "fitted", slots: 2 });
  await using b = await startReferenceServer({
    predictor: "fitted",
    slots: 2,
    faults: "malformed=1",
  });
  try {
    const dir = join(tmp, "run");
    const r = await runScript("bench.ts", [
      await replicasWorkflow(tmp, [a.url, b.url]),
      "--parallel",
      "2",
      "--limit",
      "12",
      "--out",
      dir,
      "--no-db",
    ]);
    assert.equal(r.code, 1, r.stderr);
    const run = await readRunJson(dir);
    const [ra, rb] = run.replicas!;
    assert.ok(ra && rb);
    assert.equal(rb.requests, b.stats().decisionRequests);
    assert.ok(rb.requests > 0);
    // Each of its replies was refused: no valid answer, every request an error, still alive.
    assert.equal(rb.answered, 0);
    assert.equal(rb.errors, rb.requests);
    assert.equal(rb.excluded, false);
    assert.equal(rb.latency, null);
    assert.equal(ra.answered, ra.requests);
    assert.equal(ra.answered + rb.errors, 12);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("over replicas, a reply from the request cache is no replica's request", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-replicas-cache-" });
  await using a = await startReferenceServer({ predictor: "fitted", slots: 2 });
  await using b = await startReferenceServer({ predictor: "fitted", slots: 2 });
  try {
    const file = await replicasWorkflow(tmp, [a.url, b.url]);
    const bench = (out: string) =>
      runScript("bench.ts", [
        file,
        "--parallel",
        "2",
        "--limit",
        "8",
        "--cache-dir",
        join(tmp, "cache"),
        "--out",
        join(tmp, out),
        "--no-db",
      ]);
    assert.equal((await bench("first")).code, 0);
    const sent = a.stats().decisionRequests + b.stats().decisionRequests;
    assert.equal(sent, 8);
    const second = await bench("second");
    assert.equal(second.code, 0, second.stderr);
    assert.equal(a.stats().decisionRequests + b.stats().decisionRequests, sent);
    const replicas = (await readRunJson(join(tmp, "second"))).replicas!;
    assert.deepEqual(replicas.map((r) => [r.requests, r.answered, r.errors]), [[0, 0, 0], [
      0,
      0,
      0,
    ]]);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
