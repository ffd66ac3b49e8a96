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
