import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PINNED, REVISION } from "./constants.ts";
import { DatasetIntegrityError } from "./integrity_error.ts";
import { vendorDataset } from "./vendor.ts";

const PARQUET = fileURLToPath(
  new URL("../../../shared/typed-decisions/test-00000-of-00001.parquet", import.meta.url),
);

async function withOut(fn: (out: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "decibench_vendor_" });
  try {
    await fn(join(dir, "out"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("`vendorDataset()` downloads the pinned file from its revision URL", async () => {
  const seen: string[] = [];
  const fetch = (input: string | URL | Request): Promise<Response> => {
    seen.push(String(input));
    return Promise.resolve(new Response("not found", { status: 404, statusText: "Not Found" }));
  };
  await withOut(async (out) => {
    await assert.rejects(vendorDataset({ out, fetch }), /HTTP 404 Not Found/);
    assert.equal(existsSync(out), false);
  });
  assert.deepEqual(seen, [
    `https://huggingface.co/datasets/LocalLLaMA/typed-decisions/resolve/${REVISION}/all/test-00000-of-00001.parquet`,
  ]);
});

Deno.test("`vendorDataset()` suggests `--from` when the download fails", async () => {
  const fetch = (): Promise<Response> => Promise.reject(new TypeError("dns error"));
  await withOut(async (out) => {
    await assert.rejects(vendorDataset({ out, fetch }), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /^Cannot download 'https:\/\/huggingface\.co\/.+': dns error; /);
      assert.match(
        error.message,
        /`deno task vendor --from \.\.\/shared\/typed-decisions\/test-00000-of-00001\.parquet`$/,
      );
      return true;
    });
  });
});

Deno.test({
  name: "`vendorDataset()` refuses a downloaded file that is not the pinned one",
  ignore: !existsSync(PARQUET),
  fn: async () => {
    // The shared Parquet has the pinned rows but not the upstream file's bytes.
    const bytes = await Deno.readFile(PARQUET);
    const fetch = (): Promise<Response> => Promise.resolve(new Response(bytes));
    await withOut(async (out) => {
      await assert.rejects(vendorDataset({ out, fetch }), (error: unknown) => {
        assert.ok(error instanceof DatasetIntegrityError);
        assert.match(
          error.message,
          new RegExp(`got ${bytes.length} bytes with sha256 '[0-9a-f]{64}', not the pinned file`),
        );
        return true;
      });
      assert.equal(existsSync(out), false);
    });
  },
});

Deno.test({
  name: "`vendorDataset()` without a train source vendors the test split only",
  ignore: !existsSync(PARQUET),
  fn: () =>
    withOut(async (out) => {
      const result = await vendorDataset({ from: PARQUET, out });
      assert.deepEqual(result.files, ["test.jsonl.gz", "manifest.json", "LICENSE", "NOTICE"]);
      assert.equal(result.manifest.splits.test.sha256, PINNED.test.sha256);
      assert.equal(result.manifest.splits.train, undefined);
      assert.equal(result.manifest.splits.test.input.path, "test-00000-of-00001.parquet");
      assert.equal(result.manifest.splits.test.source.sha256, PINNED.test.sourceSha256);
    }),
});

Deno.test("`vendorDataset()` rejects a revision other than the pinned one without `newRevision`", async () => {
  await assert.rejects(
    vendorDataset({ revision: "abc" }),
    /Cannot vendor revision 'abc': it is not the pinned one; add --new-revision/,
  );
});

Deno.test("`vendorDataset()` names the file and line of a JSONL source that does not parse", async () => {
  const dir = await Deno.makeTempDir({ prefix: "decibench_vendor_" });
  try {
    const from = join(dir, "rows.jsonl");
    await Deno.writeTextFile(from, '\n{"id": \n');
    await assert.rejects(vendorDataset({ from, out: join(dir, "out") }), (error: unknown) => {
      assert.ok(error instanceof SyntaxError);
      assert.match(error.message, /^Cannot read line 2 of '.*rows\.jsonl': Cannot parse JSON: /);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "`vendorDataset()` without a train source keeps a verified train file already in the output",
  ignore: !existsSync(PARQUET),
  fn: () =>
    withOut(async (out) => {
      await Deno.mkdir(out);
      const vendored = fileURLToPath(new URL("../../vendor/typed-decisions/", import.meta.url));
      for (const name of ["manifest.json", "train.jsonl.gz"]) {
        await Deno.copyFile(join(vendored, name), join(out, name));
      }
      const result = await vendorDataset({ from: PARQUET, out });
      assert.equal(result.manifest.splits.train?.sha256, PINNED.train.sha256);
      assert.ok(result.files.includes("train.jsonl.gz"));
      const written = await Deno.readFile(join(out, "train.jsonl.gz"));
      const committed = await Deno.readFile(join(vendored, "train.jsonl.gz"));
      assert.equal(written.length, committed.length);
      assert.ok(written.every((b, i) => b === committed[i]));
    }),
});
