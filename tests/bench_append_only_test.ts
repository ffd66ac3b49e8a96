// End-to-end: `decisions.jsonl` is only ever appended to — the same file grows case by case, in
// the order cases are answered, and nothing rewrites it at the end — so a run killed outright
// (SIGKILL to its process group) loses no answered case and `--resume` gives the figures of an
// uninterrupted run.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import {
  type BenchEvent,
  decisionsWithoutLatency,
  events,
  readRunJson,
  runScript,
  spawnTaskGroup,
  summaryWithoutLatency,
  writeWorkflow,
} from "./bench_cli_helpers.ts";

/** Case ids of `decisions.jsonl`, once per case, in file order; asserts each case is whole. */
async function casesOnDisk(dir: string, questions: number): Promise<string[]> {
  const text = await Deno.readTextFile(`${dir}/decisions.jsonl`);
  assert.ok(text === "" || text.endsWith("\n"), "no torn line");
  const ids = text.split("\n").filter(Boolean).map((l) => JSON.parse(l).case as string);
  const out: string[] = [];
  for (let i = 0; i < ids.length; i += questions) {
    assert.deepEqual(ids.slice(i, i + questions), new Array(questions).fill(ids[i]), "whole cases");
    out.push(ids[i] as string);
  }
  return out;
}

Deno.test("`bench` appends to one decisions.jsonl that only grows, in the order cases are answered, and never rewrites it", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-append-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 5 });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const run = spawnTaskGroup("bench", [
      workflow,
      "--base-url",
      server.url,
      "--limit",
      "60",
      "--parallel",
      "4",
      "--out",
      dir,
      "--no-db",
      "--json",
    ]);
    const seen: string[] = [];
    let inode: number | null = null;
    let size = 0;
    for await (const line of run.lines) {
      const event = JSON.parse(line) as BenchEvent;
      if (event.event !== "case") continue;
      seen.push(String(event.case));
      // The event follows the case's write: the file holds it, and is the same file, grown.
      const stat = await Deno.stat(`${dir}/decisions.jsonl`);
      inode ??= stat.ino;
      assert.equal(stat.ino, inode, "the same file throughout");
      assert.ok(stat.size >= size, "the file only grows");
      size = stat.size;
    }
    assert.equal((await run.child.status).code, 0, await run.stderr);
    const end = await Deno.stat(`${dir}/decisions.jsonl`);
    assert.equal(end.ino, inode, "not replaced at the end");
    assert.equal(end.size, size, "nothing written after the last case");
    assert.deepEqual(await casesOnDisk(dir, 5), seen, "cases in the order they were answered");
    assert.equal(seen.length, 60);
    assert.equal((await readRunJson(dir)).status, "completed");
    const report = await Deno.readTextFile(`${dir}/report.md`);
    assert.match(report, /## Trace/);
    for (const id of seen) assert.ok(report.includes(`\n${id}  `), `trace of ${id}`);
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).sort(),
      ["decisions.jsonl", "report.html", "report.json", "report.md", "run.json"],
      "no part file or lock left",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("`bench` killed with SIGKILL to its process group loses no answered case, and `--resume` gives an uninterrupted run's figures", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-kill-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 10 });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const common = ["--base-url", server.url, "--limit", "80", "--db", `${tmp}/index.db`];
    const run = spawnTaskGroup("bench", [workflow, ...common, "--out", dir, "--json"]);
    const seen: string[] = [];
    for await (const line of run.lines) {
      const event = JSON.parse(line) as BenchEvent;
      if (event.event !== "case") continue;
      seen.push(String(event.case));
      if (seen.length === 20) Deno.kill(-run.child.pid, "SIGKILL");
    }
    assert.equal((await run.child.status).signal, "SIGKILL");
    await run.stderr;
    assert.equal((await readRunJson(dir)).status, "running", "no chance to write the end");
    const onDisk = await casesOnDisk(dir, 5);
    for (const id of seen) assert.ok(onDisk.includes(id), `answered case ${id} is on disk`);

    const resumed = await runScript("bench.ts", [workflow, ...common, "--resume", dir, "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(events(resumed.lines)[0]?.resumed, onDisk.length);
    const final = await readRunJson(dir);
    assert.equal(final.status, "completed");
    const fresh = await runScript("bench.ts", [workflow, ...common, "--out", `${tmp}/fresh`]);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.deepEqual(
      await decisionsWithoutLatency(dir),
      await decisionsWithoutLatency(`${tmp}/fresh`),
    );
    assert.deepEqual(
      summaryWithoutLatency(final),
      summaryWithoutLatency(await readRunJson(`${tmp}/fresh`)),
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
