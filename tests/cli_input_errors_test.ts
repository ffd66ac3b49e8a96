// Bad input, met the way a user meets it: one sentence that names the file, flag or value and the
// fix; exit 2 for every usage or input error; refused before a run directory is created or a
// request is sent; never a raw OS error.
import assert from "node:assert/strict";
import { startReferenceServer } from "../lib/server/mod.ts";
import { runScript, writeWorkflow } from "./bench_cli_helpers.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("bench finds a corrupt run index, a --db directory and --db with --no-db before the run starts", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-db-" });
  await using server = await startReferenceServer({ predictor: "oracle" });
  try {
    const workflow = await writeWorkflow(tmp);
    const common = [workflow, "--base-url", server.url, "--limit", "3"];
    await t.step("a corrupt index file", async () => {
      const db = `${tmp}/decibench.db`;
      await Deno.writeTextFile(db, "this is not a database ".repeat(200));
      const r = await runScript("bench.ts", [...common, "--out", `${tmp}/a`, "--db", db]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Cannot open the run index ".*decibench\.db": file is not a database/);
      assert.match(r.stderr, /--no-db/);
      assert.equal(await exists(`${tmp}/a`), false, "no run directory");
      assert.equal(server.stats().decisionRequests, 0, "nothing sent");
    });
    await t.step("--db naming a directory", async () => {
      const r = await runScript("bench.ts", [...common, "--out", `${tmp}/b`, "--db", tmp]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Cannot use --db ".*": it is a directory; give a file path/);
      assert.equal(await exists(`${tmp}/b`), false);
      assert.equal(server.stats().decisionRequests, 0);
    });
    await t.step("--no-db with --db", async () => {
      const r = await runScript("bench.ts", [...common, "--no-db", "--db", `${tmp}/x.db`]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Cannot use --db with --no-db/);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("usage and input errors exit 2 with one message, before a run directory is created", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-usage-" });
  try {
    const workflow = await writeWorkflow(tmp);
    await t.step("a base URL without a scheme is not echoed as another scheme", async () => {
      const out = `${tmp}/r1`;
      const r = await runScript("bench.ts", [
        workflow,
        "--base-url",
        "localhost:18092",
        "--out",
        out,
        "--no-db",
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /Cannot use --base-url "localhost:18092": it has no scheme; did you mean "http:\/\/localhost:18092"\?/,
      );
      assert.doesNotMatch(r.stderr, /localhost:\/\//);
      assert.equal(await exists(out), false, "no run directory");
    });
    await t.step("a bad base URL in the workflow file", async () => {
      const file = `${tmp}/bad_url.ts`;
      await Deno.writeTextFile(
        file,
        `export default { name: "u", endpoint: { baseUrl: "ftp://x/", model: "m" } };`,
      );
      const out = `${tmp}/r2`;
      const r = await runScript("bench.ts", [file, "--out", out, "--no-db"]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /not http or https/);
      assert.equal(await exists(out), false);
    });
    await t.step("a required key variable that is not set", async () => {
      const file = `${tmp}/key.ts`;
      await Deno.writeTextFile(
        file,
        `export default { name: "k", endpoint: { baseUrl: "http://127.0.0.1:9", model: "m",
          apiKeyEnv: "DECIBENCH_TEST_NEVER_SET", apiKeyRequired: true } };`,
      );
      const r = await runScript("bench.ts", [file, "--out", `${tmp}/r3`, "--no-db"]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /"DECIBENCH_TEST_NEVER_SET" is not set/);
      // Refused after the index was checked: no index file is left (an empty one is no index).
      const db = `${tmp}/new-index/decibench.db`;
      const again = await runScript("bench.ts", [file, "--out", `${tmp}/r3`, "--db", db]);
      assert.equal(again.code, 2, again.stderr);
      assert.equal(await exists(db), false, "no index file");
      assert.deepEqual([...Deno.readDirSync(`${tmp}/new-index`)], []);
    });
    await t.step("live --metrics-url garbage", async () => {
      const r = await runScript("live.ts", ["--metrics-url", "garbage", "--probes", "1"]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Cannot use --metrics-url "garbage": it is not a valid URL/);
    });
    await t.step("audit with a transcript line that breaks the format", async () => {
      const transcripts = `${tmp}/bad.jsonl`;
      await Deno.writeTextFile(transcripts, `{"id": "t1", "messages": "nope"}\n`);
      const r = await runScript("audit.ts", [
        "workflows/audit.ts",
        "--transcripts",
        transcripts,
        "--out",
        `${tmp}/audit`,
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /line 1/);
    });
    await t.step("perf with an unknown --only section, a bad --rounds or --sizes", async () => {
      const r = await runScript("perf.ts", ["--only", "scale,nope"]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^decibench: --only: unknown section "nope"; give some of scale,/);
      assert.match(r.stderr, /usage: deno task perf/);
      assert.doesNotMatch(r.stderr, /Uncaught| {4}at /);
      const rounds = await runScript("perf.ts", ["--rounds", "0"]);
      assert.equal(rounds.code, 2, rounds.stderr);
      assert.match(rounds.stderr, /--rounds/);
      assert.doesNotMatch(rounds.stderr, /Uncaught| {4}at /);
      const sizes = await runScript("perf.ts", ["--sizes", "10k,lots"]);
      assert.equal(sizes.code, 2, sizes.stderr);
      assert.match(sizes.stderr, /^decibench: Cannot use --sizes "lots": give row counts/);
      assert.doesNotMatch(sizes.stderr, /Uncaught| {4}at /);
    });
    await t.step("sweep with a labels line that breaks the format", async () => {
      const labels = `${tmp}/labels.jsonl`;
      await Deno.writeTextFile(labels, `{"id": "a", "lane": "l", "p_yes": 2, "label": true}\n`);
      const r = await runScript("sweep.ts", ["--labels", labels]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /line 1 field "p_yes"/);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("file-system errors are sentences naming the path and the fix, never `os error N`", async (t) => {
  const tmp = await Deno.makeTempDir({ prefix: "decibench-fs-" });
  await using server = await startReferenceServer({ predictor: "oracle" });
  try {
    const workflow = await writeWorkflow(tmp);
    const file = `${tmp}/a-file`;
    await Deno.writeTextFile(file, "x");
    const common = [workflow, "--base-url", server.url, "--limit", "3", "--no-db"];
    await t.step("--out at a file (File exists, os error 17)", async () => {
      const r = await runScript("bench.ts", [...common, "--out", file]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /Cannot create the run directory ".*a-file": ".*a-file" is a file, not a folder; choose another --out/,
      );
      assert.doesNotMatch(r.stderr, /os error/);
    });
    await t.step("--out under a file (Not a directory, os error 20)", async () => {
      const r = await runScript("bench.ts", [...common, "--out", `${file}/run`]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /Cannot create the run directory ".*a-file\/run": ".*a-file" is a file/,
      );
      assert.doesNotMatch(r.stderr, /os error/);
    });
    await t.step("compare --out DIR writes compare.md inside it and leaves no .tmp", async () => {
      for (const name of ["a", "b"]) {
        const r = await runScript("bench.ts", [...common, "--out", `${tmp}/${name}`]);
        assert.equal(r.code, 0, r.stderr);
      }
      const out = `${tmp}/reports`;
      await Deno.mkdir(out);
      const r = await runScript("compare.ts", [`${tmp}/a`, `${tmp}/b`, "--out", out]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(await exists(`${out}/compare.md`));
      const names = [...Deno.readDirSync(tmp), ...Deno.readDirSync(out)].map((e) => e.name);
      assert.deepEqual(names.filter((n) => n.endsWith(".tmp")), [], "no stray temp file");
    });
    await t.step("compare --out in a folder that does not exist", async () => {
      const r = await runScript("compare.ts", [
        `${tmp}/a`,
        `${tmp}/b`,
        "--out",
        `${tmp}/nope/compare.md`,
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Cannot write ".*nope\/compare\.md": no such file or folder/);
      assert.doesNotMatch(r.stderr, /os error/);
      assert.deepEqual([...Deno.readDirSync(tmp)].filter((e) => e.name.endsWith(".tmp")), []);
    });
    await t.step("a workflow syntax error names line and column", async () => {
      const bad = `${tmp}/syntax.ts`;
      await Deno.writeTextFile(
        bad,
        `export default {\n  name: "x",\n  endpoint: { baseUrl: "http://127.0.0.1:9" \n  parallel: 2,\n};\n`,
      );
      const r = await runScript("bench.ts", [bad, "--dry-run", "--limit", "1"]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /Cannot load workflow ".*syntax\.ts": syntax error at line 4, column 3/,
      );
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
