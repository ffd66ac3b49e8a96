// End-to-end: `deno task bench` writes the run index it is told to and no other. Run from a
// temporary working directory, so the checkout's own runs/decibench.db is never at stake: with
// --no-db no index appears, with --db the runs land in that file, and a completed run whose index
// write fails exits 4 (1 means a failed threshold), for one endpoint and for several.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { listRuns, openIndex } from "../lib/record/mod.ts";
import { assertOwnIndex, readRunJson, ROOT } from "./bench_cli_helpers.ts";

/** Runs bench.ts of the checkout from `cwd`, with NO_COLOR. */
async function benchIn(cwd: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      join(ROOT, "deno.json"),
      join(ROOT, "scripts/bench.ts"),
      ...args,
    ],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** A SQLite file whose `runs` table lacks the run's columns: it opens, but a run cannot go in. */
function brokenIndex(path: string): void {
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE runs (id TEXT PRIMARY KEY)");
  db.close();
}

const COMPARE = join(ROOT, "workflows/compare-engines.ts");
const REFERENCE = join(ROOT, "workflows/reference.ts");

Deno.test("bench of several endpoints with --no-db leaves no index, and with --db indexes every endpoint's run there", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "decibench-db-flags-" });
  try {
    const none = await benchIn(cwd, [COMPARE, "--limit", "2", "--out", "none", "--no-db"]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(await exists(join(cwd, "runs")), false, "--no-db: no runs/decibench.db");

    const db = join(cwd, "other.db");
    const given = await benchIn(cwd, [COMPARE, "--limit", "2", "--out", "given", "--db", db]);
    assert.equal(given.code, 0, given.stderr);
    assert.equal(await exists(join(cwd, "runs")), false, "--db: nothing in runs/");
    const index = openIndex(db, { readOnly: true });
    try {
      const runs = listRuns(index);
      const dirs = runs.map((r) => r.dir).sort();
      assert.deepEqual(dirs, [join("given", "pcd-oracle"), join("given", "systemone-fitted")]);
    } finally {
      index.close();
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("a completed run that cannot be indexed exits 4 and says how to index it, for one endpoint and for several", async (t) => {
  const cwd = await Deno.makeTempDir({ prefix: "decibench-db-fail-" });
  try {
    await t.step("one endpoint", async () => {
      brokenIndex(join(cwd, "one.db"));
      const r = await benchIn(cwd, [REFERENCE, "--limit", "3", "--out", "one", "--db", "one.db"]);
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /^decibench: Cannot index the run in "one\.db": .*--resume/m);
      assert.equal((await readRunJson(join(cwd, "one"))).status, "completed");
    });
    await t.step("several endpoints", async () => {
      brokenIndex(join(cwd, "two.db"));
      const r = await benchIn(cwd, [COMPARE, "--limit", "2", "--out", "two", "--db", "two.db"]);
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /^decibench: Cannot index the run in "two\.db"/m);
      assert.equal((await readRunJson(join(cwd, "two", "pcd-oracle"))).status, "completed");
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("the bench test helper fails a test whose run named no index, and lets refused runs and --no-db through", () => {
  assert.throws(
    () => assertOwnIndex("bench.ts", ["workflows/reference.ts", "--limit", "1"], 0),
    /Cannot run bench\.ts workflows\/reference\.ts --limit 1 in a test without --db or --no-db/,
  );
  assert.throws(() => assertOwnIndex("bench.ts", ["--limit", "1"], 1), TypeError);
  for (const args of [["--no-db"], ["--db", "x.db"], ["--db=x.db"], ["--dry-run"], ["--help"]]) {
    assertOwnIndex("bench.ts", args, 0);
  }
  assertOwnIndex("bench.ts", ["--paralel", "4"], 2);
  assertOwnIndex("compare.ts", ["a", "b"], 0);
});
