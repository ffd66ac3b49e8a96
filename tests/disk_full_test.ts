// End-to-end: the run index on a file system that fills up during the run (a 300 KiB tmpfs). The
// message gives SQLite's reason ("database or disk is full") and the command that indexes the run
// once there is space, with its --db. Needs `mount -t tmpfs` (root); skipped with a message
// otherwise.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { ROOT, runScript } from "./bench_cli_helpers.ts";

/** Mounts a tmpfs of `size` at a new folder; null when mounting is not possible here. */
function mountTmpfs(size: string): string | null {
  const dir = Deno.makeTempDirSync({ prefix: "decibench-full-" });
  try {
    const r = new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    if (r.success) return dir;
  } catch {
    // no mount command
  }
  Deno.removeSync(dir);
  return null;
}

function unmount(dir: string): void {
  new Deno.Command("umount", { args: [dir], stdout: "null", stderr: "null" }).outputSync();
  Deno.removeSync(dir);
}

const probe = mountTmpfs("64k");
if (probe !== null) unmount(probe);
else console.error("disk_full_test: skipped: cannot mount a tmpfs here (needs root)");

Deno.test({
  name: "an index on a full disk says 'database or disk is full' and how to index the run later",
  ignore: probe === null,
  async fn() {
    const full = mountTmpfs("300k")!;
    const tmp = await Deno.makeTempDir({ prefix: "decibench-full-run-" });
    try {
      const out = join(tmp, "run");
      const db = join(full, "index.db");
      const r = await runScript("bench.ts", ["--out", out, "--db", db]);
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /Cannot index the run in "[^"]+": database or disk is full/);
      assert.doesNotMatch(r.stderr, /cannot rollback/);
      assert.ok(r.stderr.includes(`deno task bench --resume ${out} --db ${db}`), r.stderr);
    } finally {
      unmount(full);
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a run directory on a disk that fills mid-run ends interrupted with the reason and a resume hint with --db that finishes it",
  ignore: probe === null,
  async fn() {
    const full = mountTmpfs("8m")!;
    const tmp = await Deno.makeTempDir({ prefix: "decibench-full-index-" });
    try {
      const out = join(full, "run");
      const db = join(tmp, "index.db");
      // Most of the disk taken by something else: the run fills the rest.
      const filler = join(full, "filler");
      await Deno.writeFile(filler, new Uint8Array(7600 * 1024));
      const r = await runScript("bench.ts", ["--out", out, "--db", db]);
      assert.notEqual(r.code, 0, r.stderr);
      const line = r.stderr.split("\n").find((l) => l.startsWith("decibench:")) ?? "";
      assert.match(line, /Cannot write the run "[^"]+": .*No space left on device/);
      const hint = `deno task bench --resume ${out} --db ${db}`;
      assert.ok(line.endsWith(`finish the run with ${hint}`), line);
      const run = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      assert.equal(run.status, "interrupted", "not left running");
      assert.match(String(run.fatal), /No space left on device/);
      assert.ok(String(run.fatal).endsWith(hint), run.fatal);
      const indexed = new DatabaseSync(db, { readOnly: true });
      const row = indexed.prepare("SELECT status FROM runs").get() as { status: string };
      indexed.close();
      assert.equal(row.status, "interrupted", "the index agrees");
      // Space freed, the hint pasted into a shell finishes the run.
      await Deno.remove(filler);
      const resumed = await new Deno.Command("bash", {
        args: ["-c", hint],
        cwd: ROOT,
        stdout: "null",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(resumed.stderr);
      assert.equal(resumed.code, 0, stderr);
      const done = JSON.parse(await Deno.readTextFile(join(out, "run.json")));
      assert.equal(done.status, "completed");
      const lines = (await Deno.readTextFile(join(out, "decisions.jsonl"))).trim().split("\n");
      assert.equal(lines.length, done.spec.cases * 5, "every case answered once");
    } finally {
      unmount(full);
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
