/**
 * `deno task train`: fits the `fitted` model on the vendored train split and writes
 * `vendor/model/fitted.json.gz` and `vendor/model/manifest.json`.
 *
 * Options:
 * - `--check`: retrain in memory and compare with the vendored files byte for byte; writes
 *   nothing, exits 1 when they differ.
 * - `--dir PATH`: the model folder (default `vendor/model/`).
 *
 * Training is deterministic: the same train split gives the same bytes on the same machine.
 * The test split is never read.
 *
 * @module
 */
import { type CommandSpec, parseCommand, UsageError, usageLine } from "../lib/cli/args.ts";
import { runMain } from "../lib/cli/main.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDataset } from "../lib/dataset/mod.ts";
import {
  encodeModel,
  type HeldOutFigures,
  MANIFEST_FILE,
  MODEL_DIR,
  trainModel,
  WEIGHTS_FILE,
  writeModel,
} from "../lib/model/mod.ts";

function row(name: string, f: HeldOutFigures): string {
  return `${name.padEnd(44)} ${String(f.n).padStart(5)} ${f.accuracy.toFixed(3)}  ${
    f.klBeforeTemperature.toFixed(3)
  } ${f.kl.toFixed(3)}  ${f.brier.toFixed(3)}`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function readOrNull(path: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

const COMMAND: CommandSpec = {
  name: "train",
  summary:
    `Fit the fitted model on the vendored Typed Decisions train split (never the test split) and write
vendor/model/fitted.json.gz and vendor/model/manifest.json. Training is deterministic.`,
  options: {
    check: {
      type: "boolean",
      help: "retrain in memory and compare with the vendored files byte for byte; writes nothing",
    },
    dir: { type: "string", value: "PATH", help: "the model folder (default vendor/model/)" },
  },
  more: "Exit status: 0 written or checked; 1 --check found a difference; 2 a usage error.",
};

async function main(args: string[]): Promise<number> {
  const parsed = parseCommand(args, COMMAND);
  if (parsed.positionals.length) {
    throw new UsageError(`Cannot train: unexpected argument "${parsed.positionals[0]}"`);
  }
  const values = {
    check: parsed.values.check === true,
    dir: parsed.values.dir as string | undefined,
  };
  const dir = values.dir ?? fileURLToPath(MODEL_DIR);
  const { cases, info } = await loadDataset({ split: "train" });
  const started = performance.now();
  const result = trainModel(cases);
  const seconds = (performance.now() - started) / 1000;
  const encoded = await encodeModel(result, {
    dataset: info.dataset,
    revision: info.revision,
    sha256: info.sha256,
    rows: info.rows,
  });
  console.log(
    `Trained on ${info.rows} train cases (sha256 ${info.sha256.slice(0, 12)}…) in ${
      seconds.toFixed(1)
    } s; held-out fifth: ${result.split.heldOut} cases, fitted on ${result.split.fit}`,
  );
  console.log(`${"held-out (workflow/question)".padEnd(44)}     n   acc   KL(T=1) KL    Brier`);
  for (const [name, figures] of Object.entries(result.heldOut.byQuestion)) {
    console.log(row(name, figures));
  }
  console.log(row("overall", result.heldOut.overall));
  console.log(`Weights: ${encoded.weights.length} bytes (gzip)`);
  if (values.check) {
    const weightsPath = join(dir, WEIGHTS_FILE);
    const manifestPath = join(dir, MANIFEST_FILE);
    const problems: string[] = [];
    const weights = await readOrNull(weightsPath);
    const manifest = await readOrNull(manifestPath);
    if (weights === null || !sameBytes(weights, encoded.weights)) {
      problems.push(`'${weightsPath}' ${weights === null ? "is missing" : "differs"}`);
    }
    if (manifest === null || !sameBytes(manifest, encoded.manifest)) {
      problems.push(`'${manifestPath}' ${manifest === null ? "is missing" : "differs"}`);
    }
    if (problems.length > 0) {
      console.error(
        `Cannot confirm the vendored model: ${
          problems.join(" and ")
        } from a fresh training run; run \`deno task train\` to rewrite it`,
      );
      return 1;
    }
    console.log("Check passed: retraining reproduces the vendored files byte for byte");
    return 0;
  }
  for (const path of await writeModel(encoded, { dir })) console.log(`Wrote ${path}`);
  return 0;
}

if (import.meta.main) await runMain(main, { usage: usageLine(COMMAND) });
