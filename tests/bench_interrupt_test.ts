// The run loop's Ctrl+C contract, in-process against a real reference server over loopback: once
// the signal aborts no new request is sent; requests in flight finish within the grace period (and
// are recorded) or are abandoned after it (and their cases stay unasked).
import assert from "node:assert/strict";
import { readDecisions } from "../lib/record/mod.ts";
import { RunJsonSchema } from "../lib/record/schemas.ts";
import { startReferenceServer } from "../lib/server/mod.ts";
import { runBenchmark, validateWorkflow } from "../lib/workflow/mod.ts";

async function inFlight(stats: () => { processing: number }, n: number): Promise<void> {
  for (let i = 0; i < 500 && stats().processing < n; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(stats().processing, n, `expected ${n} requests in flight`);
}

Deno.test("`runBenchmark()` interrupted mid-run sends nothing new and keeps or abandons the requests in flight", async (t) => {
  const table = [
    {
      name: "in-flight requests that finish within the grace are recorded",
      latencyMs: 400,
      graceMs: 10_000,
      cases: 2,
    },
    {
      name: "in-flight requests still running after the grace are abandoned",
      latencyMs: 30_000,
      graceMs: 50,
      cases: 0,
    },
  ];
  for (const row of table) {
    await t.step(row.name, async () => {
      const tmp = await Deno.makeTempDir({ prefix: "decibench-interrupt-" });
      await using server = await startReferenceServer({
        predictor: "oracle",
        latencyMs: row.latencyMs,
      });
      try {
        const workflow = validateWorkflow({
          name: "interrupt",
          endpoint: { baseUrl: server.url, model: "m" },
          parallel: 2,
        }, "interrupt");
        const controller = new AbortController();
        const running = runBenchmark(workflow, {
          limit: 20,
          outDir: `${tmp}/run`,
          signal: controller.signal,
          graceMs: row.graceMs,
          dbPath: null,
        });
        await inFlight(() => server.stats(), 2);
        controller.abort();
        const result = await running;
        assert.equal(result.status, "interrupted");
        assert.equal(server.stats().decisionRequests, 2, "no request after the interruption");
        const records = await readDecisions(`${result.dir}/decisions.jsonl`);
        assert.equal(records.length, row.cases * 5);
        assert.equal(records.filter((r) => r.error).length, 0, "abandoned is not an error");
        const run = RunJsonSchema.parse(
          JSON.parse(await Deno.readTextFile(`${tmp}/run/run.json`)),
        );
        assert.equal(run.status, "interrupted");
        assert.equal(run.sessions?.[0]?.asked, row.cases);
      } finally {
        await Deno.remove(tmp, { recursive: true });
      }
    });
  }
});
