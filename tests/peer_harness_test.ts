/**
 * The Python/httpx peer harness (scripts/peer/peer.py, which `deno task perf` times decibench
 * against) does the same job: against the same seeded fault mix it records, decision by decision,
 * the same answer, correctness, KL, Brier, error kind and attempts as decibench, and the same
 * summary. Needs Debian's python3-httpx (scripts/test_deps.sh installs it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./bench_cli_helpers.ts";
import { readDecisions } from "../lib/record/mod.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { runBenchmark, validateWorkflow } from "../lib/workflow/mod.ts";

const FAULTS = "malformed=0.05,out_of_range=0.05,missing_option=0.05,truncated=0.04," +
  "http429=0.05:0,http500=0.04,reset=0.03,timeout=0.02";
const CASES = 80;

Deno.test("the peer harness records what decibench records on the same faulty server", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench-peer-" });
  try {
    // Parallel 1 on both sides, each against a fresh server with the same seed: request n
    // draws fault n, so both meet the same faults on the same cases and retries.
    const server = { predictor: "fitted", faults: FAULTS, seed: 5 };
    let ours;
    {
      await using reference = await startReferenceServer(server);
      const workflow = validateWorkflow({
        name: "peer",
        endpoint: { baseUrl: reference.url, model: "m", timeoutMs: 300, retries: 2 },
        parallel: 1,
      }, "peer");
      ours = await runBenchmark(workflow, {
        limit: CASES,
        outDir: join(dir, "decibench"),
        backoffMs: 1,
        reports: false,
        dbPath: null,
      });
    }
    {
      await using reference = await startReferenceServer(server);
      const output = await new Deno.Command("/usr/bin/python3", {
        args: [
          join(ROOT, "scripts/peer/peer.py"),
          "--url",
          reference.url,
          "--model",
          "m",
          "--parallel",
          "1",
          "--limit",
          String(CASES),
          "--timeout",
          "0.3",
          "--backoff",
          "0.001",
          "--out",
          join(dir, "peer"),
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(output.code, 1, new TextDecoder().decode(output.stderr)); // some decisions errored
    }
    const peer = (await Deno.readTextFile(join(dir, "peer", "decisions.jsonl"))).trim().split("\n")
      .map((line) => JSON.parse(line));
    const mine = await readDecisions(join(ours.dir, "decisions.jsonl"));
    assert.equal(peer.length, mine.length);
    const kinds = new Set<string>();
    for (const [i, a] of mine.entries()) {
      const b = peer.find((p) => p.case === a.case && p.question === a.question);
      assert.ok(b, `peer has no ${a.case}/${a.question}`);
      const where = `${a.case}/${a.question} (#${i})`;
      assert.equal(b.error?.kind ?? null, a.error?.kind ?? null, where);
      assert.equal(b.attempts, a.attempts, where);
      assert.equal(b.answer, a.answer, where);
      assert.equal(b.correct, a.correct, where);
      for (const field of ["kl", "brier", "confidence"] as const) {
        const x = a[field];
        const y = b[field];
        if (x === null || x === undefined) assert.equal(y, x, `${where} ${field}`);
        else assert.ok(y != null && Math.abs(y - x) < 1e-12, `${where} ${field}`);
      }
      if (a.error) kinds.add(a.error.kind);
    }
    // The mix reached the strict checks and the retries on both sides.
    assert.ok(kinds.has("malformed"), [...kinds].join(","));
    assert.ok(mine.some((r) => r.attempts > 1), "no decision was retried");
    const summary = JSON.parse(await Deno.readTextFile(join(dir, "peer", "summary.json")));
    for (const metric of ["accuracy", "kl", "brier", "ece"]) {
      assert.ok(
        Math.abs(summary[metric] - (ours.summary.metrics[metric] as number)) < 1e-12,
        metric,
      );
    }
    assert.equal(summary.errors, ours.summary.errors);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
