// One run per directory, one writer per run: `--out` never lands on top of a run, and a second
// process (a new run or a `--resume`) is refused while the first still writes the directory.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { readRunJson, runScript, spawnScript, writeWorkflow } from "./bench_cli_helpers.ts";

Deno.test("`bench --out DIR` refuses a directory that holds a run, naming it, and an empty --out", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-out-" });
  await using server = await startReferenceServer({ predictor: "oracle" });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const common = [workflow, "--base-url", server.url, "--db", `${tmp}/index.db`];
    const first = await runScript("bench.ts", [...common, "--limit", "20", "--out", dir]);
    assert.equal(first.code, 0, first.stderr);
    const before = await Deno.readTextFile(`${dir}/decisions.jsonl`);
    const run = await readRunJson(dir);
    const requests = server.stats().decisionRequests;

    await t.step("a completed run is not overwritten", async () => {
      const again = await runScript("bench.ts", [...common, "--limit", "3", "--out", dir]);
      assert.equal(again.code, 2, again.stderr);
      assert.match(again.stderr, new RegExp(`it already holds run "${run.id}" \\(completed\\)`));
      assert.match(again.stderr, /choose another --out/);
      assert.equal(await Deno.readTextFile(`${dir}/decisions.jsonl`), before, "decisions kept");
      assert.deepEqual(await readRunJson(dir), run, "run.json kept");
      assert.equal(server.stats().decisionRequests, requests, "nothing was sent");
    });

    await t.step("an unfinished run is pointed at --resume", async () => {
      const partial = `${tmp}/partial`;
      await Deno.mkdir(partial);
      await Deno.writeTextFile(
        `${partial}/run.json`,
        JSON.stringify({ ...run, status: "interrupted" }),
      );
      const again = await runScript("bench.ts", [...common, "--limit", "3", "--out", partial]);
      assert.equal(again.code, 2, again.stderr);
      assert.match(
        again.stderr,
        /\(interrupted\); finish that one with deno task bench --resume .*partial, or choose another --out/,
      );
    });

    await t.step("an empty --out is a usage error", async () => {
      const empty = await runScript("bench.ts", [...common, "--limit", "3", "--out", ""]);
      assert.equal(empty.code, 2, empty.stderr);
      assert.match(empty.stderr, /Cannot use --out "": it is empty; give a path/);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a second writer of a run directory is refused naming the first one's pid; a stale lock is taken over", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-lock-" });
  await using server = await startReferenceServer({ predictor: "oracle", latencyMs: 150 });
  try {
    const workflow = await writeWorkflow(tmp);
    const dir = `${tmp}/run`;
    const common = [workflow, "--base-url", server.url, "--no-db"];
    const writer = spawnScript("bench.ts", [
      ...common,
      "--limit",
      "200",
      "--parallel",
      "1",
      "--out",
      dir,
      "--json",
    ]);
    // Wait for the first answered case: the lock is held from before the first request.
    for await (const line of writer.lines) if (JSON.parse(line).event === "case") break;
    const lock = JSON.parse(await Deno.readTextFile(`${dir}/run.lock`));
    assert.equal(lock.pid, writer.child.pid);

    await t.step("--resume while the first writer runs", async () => {
      const second = await runScript("bench.ts", ["--resume", dir, "--no-db"]);
      assert.equal(second.code, 2, second.stderr);
      assert.match(second.stderr, new RegExp(`process ${writer.child.pid} is writing it`));
    });
    await t.step("a new run into the same --out", async () => {
      const second = await runScript("bench.ts", [...common, "--limit", "3", "--out", dir]);
      assert.equal(second.code, 2, second.stderr);
      assert.match(second.stderr, new RegExp(`process ${writer.child.pid} is writing it`));
    });

    // The writer dies without cleaning up: its lock stays, stale.
    writer.child.kill("SIGKILL");
    await writer.child.status;
    await writer.stderr;
    assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/run.lock`)).pid, writer.child.pid);

    await t.step("a lock left by a dead process does not block --resume", async () => {
      const resumed = await runScript("bench.ts", ["--resume", dir, "--no-db", "--parallel", "8"]);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal((await readRunJson(dir)).status, "completed");
      await assert.rejects(Deno.stat(`${dir}/run.lock`), Deno.errors.NotFound, "lock released");
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
