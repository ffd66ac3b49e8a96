/**
 * `deno task export RUN [--format eval-results|every-eval-ever|csv] [--out PATH]
 * [--trained-on-train yes|no] [--model-id DEVELOPER/MODEL] [--source-url URL] [--org NAME]
 * [--relationship first_party|third_party|collaborative|other]
 * [--availability open_weights|closed_weights|unknown]`: writes a run in a
 * format the field shares. RUN is a run directory, or a run id under `runs/`. Files go to the run
 * directory's `export/` folder unless `--out` names the file (eval-results, csv; `-` for stdout)
 * or the root folder (every-eval-ever). Exit 2 for a usage error or a run the format refuses.
 *
 * @module
 */
import { join } from "node:path";
import {
  type CommandSpec,
  parseCommand,
  pathFlag,
  stringFlag,
  urlFlag,
  UsageError,
  usageLine,
} from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import {
  EVALUATOR_RELATIONSHIPS,
  EXPORT_FORMAT_REGISTRY,
  exportFormat,
  MODEL_AVAILABILITIES,
  SOURCE_EVERY_EVAL_EVER,
  trainSplitPredictor,
  writeExport,
} from "../lib/export/mod.ts";
import { findRun, fsErrorMessage, type OpenedRun } from "../lib/record/mod.ts";

const COMMAND: CommandSpec = {
  name: "export",
  args: "RUN",
  summary:
    `Writes a run in a format the field shares. RUN is a run directory or a run id under runs/.
Without --out the files go to RUN/export/.`,
  options: {
    format: {
      type: "string",
      value: "FORMAT",
      help: [
        "the format (default csv):",
        ...EXPORT_FORMAT_REGISTRY.map((f) => `  ${f.name}: ${f.description}`),
      ].join("\n"),
    },
    out: {
      type: "string",
      value: "PATH",
      help:
        "the file to write (eval-results, csv; - for stdout) or the root folder (every-eval-ever)",
    },
    "trained-on-train": {
      type: "string",
      value: "yes|no",
      help:
        "whether the model was trained on the Typed Decisions train split (eval-results: required)",
    },
    "model-id": {
      type: "string",
      value: "DEVELOPER/MODEL",
      help: "the model's id for every-eval-ever (default the reported model)",
    },
    "source-url": {
      type: "string",
      value: "URL",
      help:
        "a public link to the run's traces for eval-results' source, or every-eval-ever: the run's record in the Every Eval Ever datastore (export it with --format every-eval-ever and the same --model-id, then submit it there)",
    },
    org: {
      type: "string",
      value: "NAME",
      help: "the organisation that ran the evaluation, for every-eval-ever (default unknown)",
    },
    relationship: {
      type: "string",
      value: "KIND",
      help:
        "your relationship to the model for every-eval-ever: first_party, third_party, collaborative or other (default first_party for the embedded reference server, else third_party)",
    },
    availability: {
      type: "string",
      value: "KIND",
      help:
        "whether the model's weights are published, for every-eval-ever: open_weights, closed_weights or unknown (default open_weights for the embedded reference server, else unknown)",
    },
  },
  more:
    "Exit status: 0 written; 2 a usage error or a run the format refuses (the message says why).",
};

async function resolveRun(arg: string): Promise<OpenedRun> {
  try {
    return await findRun(arg);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function yesNo(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === "yes") return true;
  if (value === "no") return false;
  throw new UsageError(`Cannot use --trained-on-train "${value}": it must be "yes" or "no"`);
}

function oneOf<T extends string>(
  value: string | undefined,
  flag: string,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(
    `Cannot use --${flag} "${value}": it must be one of ${choices.join(", ")}`,
  );
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(args, COMMAND);
  if (positionals.length !== 1) {
    throw new UsageError(
      `Cannot export: expected one run (a run directory or id), got ${positionals.length}`,
    );
  }
  const name = stringFlag(values.format) ?? "csv";
  const format = exportFormat(name);
  if (!format) {
    throw new UsageError(
      `Cannot use --format "${name}": it is not a format; choose one of ${
        EXPORT_FORMAT_REGISTRY.map((f) => f.name).join(", ")
      }`,
    );
  }
  const trainedOnTrain = yesNo(stringFlag(values["trained-on-train"]));
  const relationship = oneOf(
    stringFlag(values.relationship),
    "relationship",
    EVALUATOR_RELATIONSHIPS,
  );
  const availability = oneOf(
    stringFlag(values.availability),
    "availability",
    MODEL_AVAILABILITIES,
  );
  const organization = stringFlag(values.org);
  if (organization !== undefined && organization.trim() === "") {
    throw new UsageError('Cannot use --org "": give the organisation\'s name');
  }
  const sourceUrl = urlFlag(values["source-url"], "source-url", [SOURCE_EVERY_EVAL_EVER]);
  const loaded = await resolveRun(positionals[0] as string);
  // A run of a predictor built from the train split is a fine-tuned row whatever is said.
  if (
    format.name === "eval-results" && trainedOnTrain === undefined &&
    trainSplitPredictor(loaded.run) === null
  ) {
    throw new UsageError(
      "Cannot export as eval-results: --trained-on-train yes|no is required; say whether the model was trained on the Typed Decisions train split (the card keeps fine-tuned and zero-shot rows apart)",
    );
  }
  const result = await format.build(loaded, {
    trainedOnTrain,
    organization,
    relationship,
    availability,
    modelId: stringFlag(values["model-id"]),
    sourceUrl,
    datasetDir: Deno.env.get("DECIBENCH_DATASET_DIR"),
  });
  const out = pathFlag(values.out, "out");
  let written: string[];
  try {
    written = await writeExport(result, loaded.dir, { out, file: format.singleFile });
  } catch (error) {
    const where = out ?? join(loaded.dir, "export");
    throw new UsageError(fsErrorMessage(error, where, "write", { fix: "choose another --out" }));
  }
  if (!written.includes("-")) {
    for (const path of written) {
      console.log(`${format.name}  ${path}`);
    }
  }
  return 0;
}

if (import.meta.main) {
  await runMain(main, { usage: usageLine(COMMAND), usageErrors: [RangeError] });
}
