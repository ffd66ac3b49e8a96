import assert from "node:assert/strict";
import { LOCK_FILE, lockRunDir, RunDirError } from "./run_dir.ts";
import { resumeCommand, shellQuote } from "./resume_command.ts";

Deno.test("`lockRunDir()` takes an exclusive lock with the pid, refused to a second writer naming it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await lockRunDir(`${dir}/run`);
    const lock = JSON.parse(await Deno.readTextFile(`${dir}/run/${LOCK_FILE}`));
    assert.equal(lock.pid, Deno.pid);
    await assert.rejects(
      lockRunDir(`${dir}/run`, { fresh: false, flag: "--resume" }),
      RunDirError,
      `process ${Deno.pid} is writing it`,
    );
    await first.release();
    await assert.rejects(Deno.stat(`${dir}/run/${LOCK_FILE}`), Deno.errors.NotFound);
    await using _again = await lockRunDir(`${dir}/run`, { fresh: false });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`lockRunDir()` replaces a lock whose process is gone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const gone = new Deno.Command("true").spawn();
    await gone.status; // exited and reaped: its pid runs nothing now
    await Deno.writeTextFile(
      `${dir}/${LOCK_FILE}`,
      JSON.stringify({
        pid: gone.pid,
        hostname: Deno.hostname(),
        started_at: "x",
        process_start: null,
      }),
    );
    await using lock = await lockRunDir(dir, { fresh: false });
    assert.equal(JSON.parse(await Deno.readTextFile(lock.path)).pid, Deno.pid);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`lockRunDir()` refuses a fresh run where a run is, and takes a resumed one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/run.json`,
      JSON.stringify({ id: "r-1", status: "interrupted" }),
    );
    await assert.rejects(
      lockRunDir(dir),
      RunDirError,
      `it already holds run "r-1" (interrupted); finish that one with deno task bench --resume ${dir}`,
    );
    await assert.rejects(Deno.stat(`${dir}/${LOCK_FILE}`), Deno.errors.NotFound, "no lock left");
    await using _resumed = await lockRunDir(dir, { fresh: false });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("`resumeCommand()` is a pasteable command, quoting what the shell would split", () => {
  assert.equal(resumeCommand("runs/r-1"), "deno task bench --resume runs/r-1");
  assert.equal(resumeCommand("my runs/it's"), `deno task bench --resume 'my runs/it'\\''s'`);
  assert.equal(resumeCommand("r", { db: "" }), "deno task bench --resume r --no-db");
  assert.equal(resumeCommand("r", { db: "runs/decibench.db" }), "deno task bench --resume r");
  assert.equal(
    resumeCommand("r", { db: "/tmp/x y.db" }),
    "deno task bench --resume r --db '/tmp/x y.db'",
  );
  assert.equal(shellQuote("a$b"), "'a$b'");
});
