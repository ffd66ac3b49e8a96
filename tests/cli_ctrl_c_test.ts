// Ctrl+C the way a terminal sends it: `deno task <command>` runs in a process group of its own and
// SIGINT goes to the whole group, so the command receives it from the terminal and again from
// `deno task`, which forwards it. One Ctrl+C must still be one interrupt: the 2 s grace, the run
// written as interrupted with its summary, the reports, the resume hint, exit 130.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { ctrlC, events, readRunJson, spawnTaskGroup, writeWorkflow } from "./bench_cli_helpers.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("one Ctrl+C to the process group of `deno task bench` interrupts cleanly: grace, summary, report, resume hint, exit 130", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-ctrl-c-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 600 });
  try {
    const workflow = await writeWorkflow(tmp);
    // Three rounds: the double delivery is a race, each round gives it a chance to show.
    for (const round of [1, 2, 3]) {
      await t.step(`round ${round}`, async () => {
        const dir = `${tmp}/run${round}`;
        const before = server.stats().decisionRequests;
        const run = spawnTaskGroup("bench", [
          workflow,
          "--base-url",
          server.url,
          "--limit",
          "200",
          "--parallel",
          "4",
          "--out",
          dir,
          "--db",
          `${tmp}/index.db`,
          "--json",
        ]);
        const lines: string[] = [];
        let cases = 0;
        let sent = false;
        for await (const line of run.lines) {
          lines.push(line);
          if (!sent && JSON.parse(line).event === "case" && ++cases >= 4) {
            sent = true;
            ctrlC(run.child);
          }
        }
        const { code } = await run.child.status;
        const stderr = await run.stderr;
        assert.ok(sent, "the run ended before 4 cases were answered");
        assert.equal(code, 130, stderr);
        assert.match(stderr, /interrupted: no new requests; waiting up to 2 s/);
        const list = events(lines);
        const answered = list.filter((e) => e.event === "case").length;
        // The requests in flight at the Ctrl+C finished within the grace and were recorded.
        assert.equal(server.stats().decisionRequests - before, answered, "nothing abandoned");
        assert.equal(list.at(-1)?.event, "summary");
        const recorded = await readRunJson(dir);
        assert.equal(recorded.status, "interrupted");
        assert.notEqual(recorded.summary, null);
        assert.equal((recorded.summary as { decisions: number }).decisions, answered * 5);
        assert.ok(await exists(`${dir}/report.md`), "report.md written");
        assert.ok(await exists(`${dir}/report.html`), "report.html written");
        assert.match(stderr, /run interrupted; finish it with: deno task bench --resume /);
      });
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("one Ctrl+C to the process group of `deno task audit` saves the audit as interrupted and exits 130", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-ctrl-c-audit-" });
  await using judge = await startReferenceServer({ predictor: "judge", latencyMs: 300 });
  try {
    const out = `${tmp}/audit`;
    const run = spawnTaskGroup("audit", [
      "workflows/audit.ts",
      "--base-url",
      judge.url,
      "--out",
      out,
      "--json",
    ]);
    let results = 0;
    let sent = false;
    for await (const line of run.lines) {
      if (!sent && JSON.parse(line).event === "audit_result" && ++results >= 2) {
        sent = true;
        ctrlC(run.child);
      }
    }
    const { code } = await run.child.status;
    const stderr = await run.stderr;
    assert.ok(sent, "the audit ended before 2 results");
    assert.equal(code, 130, stderr);
    const meta = JSON.parse(await Deno.readTextFile(`${out}/audit.json`));
    assert.equal(meta.status, "interrupted");
    assert.ok(await exists(`${out}/audit.md`));
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("one Ctrl+C to the process group of `deno task live` and `deno task serve` stops them with exit 0", async (t) => {
  await using server = await startReferenceServer({ predictor: "oracle" });
  await t.step("live", async () => {
    const run = spawnTaskGroup("live", ["--base-url", server.url, "--interval", "0.1"]);
    let probes = 0;
    for await (const line of run.lines) {
      if (line.trim() && ++probes === 3) ctrlC(run.child);
    }
    const { code } = await run.child.status;
    const stderr = await run.stderr;
    assert.ok(probes >= 3, stderr);
    assert.equal(code, 0, stderr);
  });
  await t.step("serve", async () => {
    const run = spawnTaskGroup("serve", ["--port", "0"]);
    const first = await run.lines.next();
    assert.match(first.value ?? "", /listening on http/);
    ctrlC(run.child);
    for await (const _ of run.lines) { /* drain */ }
    const { code } = await run.child.status;
    assert.equal(code, 0, await run.stderr);
  });
});
