/**
 * `deno task vendor [--from PARQUET] [--train-from JSONL] [--out DIR] [--new-revision --revision REV]`
 *
 * Regenerates `vendor/typed-decisions/` from the pinned Typed Decisions Parquet file (downloaded,
 * or a local copy with `--from`) and the train split's JSONL (`--train-from`, by default
 * `../shared/typed-decisions/train.jsonl` when it exists). Refuses content that is not the pinned
 * content unless `--new-revision` is given.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse, UsageError } from "../lib/cli/args.ts";
import { commandOf } from "../lib/invocation.ts";
import { vendorDataset, type VendorOptions } from "../lib/dataset/vendor.ts";

const HELP = `Usage: ${commandOf("vendor")} [options]

Regenerate vendor/typed-decisions/ (test.jsonl.gz, train.jsonl.gz, manifest.json, LICENSE, NOTICE).

Options:
  --from PATH         local test-split Parquet (or JSONL) instead of downloading the pinned file
  --train-from PATH   train-split JSONL (or Parquet); default ../shared/typed-decisions/train.jsonl
                      when it exists, else a verified train file already in the output is kept
  --out DIR           output folder (default vendor/typed-decisions/)
  --new-revision      accept content that differs from the pinned hashes (needs --revision)
  --revision REV      upstream revision to download and record (default the pinned one)
  -h, --help          show this help`;

const ROOT = new URL("../", import.meta.url);
const SHARED = new URL("../shared/typed-decisions/", ROOT);

function sharedFile(name: string): string | undefined {
  const path = fileURLToPath(new URL(name, SHARED));
  return existsSync(path) ? path : undefined;
}

async function main(args: string[]): Promise<number> {
  const parsed = parse(args, {
    from: { type: "string" },
    "train-from": { type: "string" },
    out: { type: "string" },
    "new-revision": { type: "boolean" },
    revision: { type: "string" },
    help: { type: "boolean", short: "h" },
  }, "vendor");
  if (parsed.positionals.length) {
    throw new UsageError(`Cannot vendor: unexpected argument "${parsed.positionals[0]}"`);
  }
  const values = parsed.values as Record<string, string | undefined> & {
    help?: boolean;
    "new-revision"?: boolean;
  };
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const trainFrom = values["train-from"] ?? sharedFile("train.jsonl");
  const licenseFrom = sharedFile("LICENSE");
  const options: VendorOptions = {
    newRevision: values["new-revision"] === true,
    log: (message) => console.error(message),
    from: values.from,
    trainFrom,
    licenseFrom,
    out: values.out,
    revision: values.revision,
  };
  const started = performance.now();
  const result = await vendorDataset(options);
  const ms = Math.round(performance.now() - started);
  for (const [split, entry] of Object.entries(result.manifest.splits)) {
    if (entry) console.log(`${split}: ${entry.rows} rows → ${entry.data} (sha256 ${entry.sha256})`);
  }
  console.log(`Wrote ${result.files.join(", ")} to '${result.dir}' in ${ms} ms`);
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    if (error instanceof UsageError) {
      console.error(`Run ${commandOf("vendor")} --help for the options.`);
    }
    Deno.exit(error instanceof UsageError ? 2 : 1);
  }
}
