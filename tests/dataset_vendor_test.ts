/**
 * `deno task vendor` reproduces the committed files byte for byte from the shared source
 * material, and refuses sources whose content is not the pinned content.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDataset, PINNED } from "../lib/dataset/mod.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const VENDORED = join(ROOT, "vendor", "typed-decisions");
const SHARED = join(ROOT, "..", "shared", "typed-decisions");
const PARQUET = join(SHARED, "test-00000-of-00001.parquet");
const TEST_JSONL = join(SHARED, "test.jsonl");
const noSource = !existsSync(PARQUET) || !existsSync(TEST_JSONL);

async function vendor(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/vendor.ts", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const body = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(body).arrayBuffer());
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "decibench_vendor_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

/** The shared test JSONL with one state value changed: valid rows, not the pinned content. */
async function editedJsonl(dir: string): Promise<string> {
  const text = await Deno.readTextFile(TEST_JSONL);
  const edited = text.replace(
    '"task": "Rotate the expired TLS certificate on the staging load balancer."',
    '"task": "Rotate the expired TLS certificate on the production load balancer."',
  );
  assert.notEqual(edited, text);
  const path = join(dir, "edited.jsonl");
  await Deno.writeTextFile(path, edited);
  return path;
}

Deno.test({
  name: "`deno task vendor --from` reproduces the committed vendored files byte for byte",
  ignore: noSource,
  fn: () =>
    withTempDir(async (out) => {
      const result = await vendor(["--from", PARQUET, "--out", out]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`test: 400 rows .*${PINNED.test.sha256}`));
      const names = ["LICENSE", "NOTICE", "manifest.json", "test.jsonl.gz", "train.jsonl.gz"];
      assert.deepEqual(await listFiles(out), names);
      for (const name of names) {
        const made = await Deno.readFile(join(out, name));
        const committed = await Deno.readFile(join(VENDORED, name));
        assert.ok(
          made.length === committed.length && made.every((b, i) => b === committed[i]),
          name,
        );
      }
      const jsonl = await gunzip(await Deno.readFile(join(out, "test.jsonl.gz")));
      assert.equal(await sha256(jsonl), PINNED.test.sha256);
      assert.equal(await sha256(jsonl), await sha256(await Deno.readFile(TEST_JSONL)));
      const train = await gunzip(await Deno.readFile(join(out, "train.jsonl.gz")));
      assert.equal(await sha256(train), PINNED.train.sha256);
    }),
});

Deno.test({
  name:
    "`deno task vendor` refuses a source whose rows are not the pinned content and writes nothing",
  ignore: noSource,
  fn: () =>
    withTempDir(async (dir) => {
      const out = join(dir, "out");
      const result = await vendor(["--from", await editedJsonl(dir), "--out", out]);
      assert.equal(result.code, 1);
      assert.match(
        result.stderr,
        /^Cannot vendor the test split from '.*edited\.jsonl': its rows hash to '[0-9a-f]{64}', not the pinned '78a228c8/m,
      );
      assert.match(result.stderr, /nothing was written/);
      assert.equal(existsSync(out), false);
    }),
});

Deno.test({
  name: "`deno task vendor` refuses a truncated Parquet file",
  ignore: noSource,
  fn: () =>
    withTempDir(async (dir) => {
      const bytes = await Deno.readFile(PARQUET);
      const broken = join(dir, "broken.parquet");
      await Deno.writeFile(broken, bytes.subarray(0, bytes.length - 100));
      const out = join(dir, "out");
      const result = await vendor(["--from", broken, "--out", out]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^Cannot read '.*broken\.parquet' as Parquet: /m);
      assert.equal(existsSync(out), false);
    }),
});

Deno.test({
  name: "`deno task vendor --new-revision` needs the new revision's id",
  ignore: noSource,
  fn: async () => {
    const result = await vendor(["--from", PARQUET, "--out", "/nonexistent", "--new-revision"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Cannot vendor a new revision: .*pass --revision/);
  },
});

Deno.test({
  name:
    "`deno task vendor --new-revision --revision REV` vendors changed content the loader accepts",
  ignore: noSource,
  fn: () =>
    withTempDir(async (dir) => {
      const out = join(dir, "out");
      const revision = "0123456789abcdef0123456789abcdef01234567";
      const result = await vendor([
        "--from",
        await editedJsonl(dir),
        "--out",
        out,
        "--new-revision",
        "--revision",
        revision,
      ]);
      assert.equal(result.code, 0, result.stderr);
      const { cases, info } = await loadDataset({ dir: out });
      assert.equal(info.revision, revision);
      assert.notEqual(info.sha256, PINNED.test.sha256);
      assert.equal(
        (cases[0]!.state as { task: string }).task,
        "Rotate the expired TLS certificate on the production load balancer.",
      );
    }),
});
