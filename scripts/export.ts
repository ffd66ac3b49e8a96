/**
 * `deno task export RUN [--format eval-results|every-eval-ever|csv] [--out PATH]
 * [--trained-on-train yes|no] [--model-id DEVELOPER/MODEL] [--source-url URL]`: writes a run in a
 * format the field shares. RUN is a run directory, or a run id under `runs/`. Files go to the run
 * directory's `export/` folder unless `--out` names the file (eval-results, csv; `-` for stdout)
 * or the root folder (every-eval-ever). Exit 2 for a usage error or a run the format refuses.
 *
 * @module
 */
import { join } from "node:path";
import { parse, stringFlag, UsageError } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { EXPORT_FORMATS, exportFormat, writeExport } from "../lib/export/mod.ts";
import { type LoadedRun, loadRun } from "../lib/record/mod.ts";

const USAGE = `usage: deno task export RUN [--format ${
  EXPORT_FORMATS.map((f) => f.name).join("|")
}] [--out PATH] [--trained-on-train yes|no] [--model-id DEVELOPER/MODEL] [--source-url URL]`;

const HELP = [
  USAGE,
  "",
  "Formats:",
  ...EXPORT_FORMATS.map((f) => `  ${f.name.padEnd(16)} ${f.description}`),
  "",
  "RUN is a run directory or a run id under runs/. Without --out the files go to RUN/export/.",
].join("\n");

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

async function resolveRun(arg: string): Promise<LoadedRun> {
  const dir = !(await exists(arg)) && await exists(join("runs", arg)) ? join("runs", arg) : arg;
  try {
    return await loadRun(dir);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function yesNo(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "yes") return true;
  if (value === "no") return false;
  throw new UsageError(`--trained-on-train must be "yes" or "no", got "${value}"`);
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    format: { type: "string" },
    out: { type: "string" },
    "trained-on-train": { type: "string" },
    "model-id": { type: "string" },
    "source-url": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(`expected one run (a run directory or id), got ${positionals.length}`);
  }
  const name = stringFlag(values.format) ?? "csv";
  const format = exportFormat(name);
  if (!format) {
    throw new UsageError(
      `--format "${name}" is not a format; choose one of ${
        EXPORT_FORMATS.map((f) => f.name).join(", ")
      }`,
    );
  }
  const trainedOnTrain = yesNo(stringFlag(values["trained-on-train"]));
  if (format.name === "eval-results" && trainedOnTrain === undefined) {
    throw new UsageError(
      "--trained-on-train yes|no is required for --format eval-results: say whether the model was trained on the Typed Decisions train split (the card keeps fine-tuned and zero-shot rows apart)",
    );
  }
  const sourceUrl = stringFlag(values["source-url"]);
  if (sourceUrl !== undefined && !/^https?:\/\/\S+$/.test(sourceUrl)) {
    throw new UsageError(`--source-url "${sourceUrl}" is not an http(s) URL`);
  }
  const loaded = await resolveRun(positionals[0] as string);
  const result = await format.build(loaded, {
    trainedOnTrain,
    modelId: stringFlag(values["model-id"]),
    sourceUrl,
    datasetDir: Deno.env.get("DECIBENCH_DATASET_DIR"),
  });
  const out = stringFlag(values.out);
  const written = await writeExport(result, loaded.dir, { out, file: format.singleFile });
  if (!written.includes("-")) {
    for (const path of written) {
      console.log(`${format.name}  ${path}`);
    }
  }
  return 0;
}

if (import.meta.main) {
  await runMain(main, { usage: USAGE, usageErrors: [RangeError] });
}
