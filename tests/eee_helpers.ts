// Helpers for the tests of the Every Eval Ever export as its consumers read it: EEE's
// `sample_hash` recipe run by Python itself, and the vendored schemas compiled with ajv.
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { ROOT, runScript } from "./bench_cli_helpers.ts";

// EEE's recipe: sha256 of json.dumps({"raw", "reference"}, sort_keys=True, separators=(",", ":")),
// ASCII-escaped (json.dumps's default). Prints the rows, the mismatches and the sample ids.
const RECIPE = `
import hashlib, json, sys
bad = []
ids = []
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line)
    payload = json.dumps({"raw": row["input"]["raw"], "reference": row["input"]["reference"]},
                         sort_keys=True, separators=(",", ":"))
    ids.append(row["sample_id"])
    if hashlib.sha256(payload.encode("utf-8")).hexdigest() != row["sample_hash"]:
        bad.append(row["sample_id"])
print(json.dumps({"rows": len(ids), "mismatched": len(bad), "first_mismatches": bad[:5], "ids": ids}))
`;

/** What Python's run of EEE's recipe found in a samples file. */
export interface RecipeCheck {
  /** Lines read. */
  rows: number;
  /** Lines whose `sample_hash` differs from the recipe's. */
  mismatched: number;
  /** The first few mismatched `sample_id`s. */
  first_mismatches: string[];
  /** Every line's `sample_id`, in order. */
  ids: string[];
}

/**
 * Recomputes every `sample_hash` of a samples file with python3 and EEE's recipe.
 *
 * @param samples The `<uuid>_samples.jsonl` path.
 * @returns The rows, the mismatches and the sample ids.
 * @throws {AssertionError} When python3 fails.
 */
export async function pythonRecipe(samples: string): Promise<RecipeCheck> {
  const out = await new Deno.Command("python3", {
    args: ["-c", RECIPE, samples],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** The vendored schemas, compiled by ajv. */
export interface Validators {
  /** Hugging Face `.eval_results` entries. */
  evalResults: ValidateFunction;
  /** An Every Eval Ever aggregate. */
  aggregate: ValidateFunction;
  /** One Every Eval Ever instance-level sample. */
  instance: ValidateFunction;
}

/**
 * Compiles vendor/schemas' Every Eval Ever and eval-results schemas with ajv.
 *
 * @returns The validators.
 */
export async function validators(): Promise<Validators> {
  const read = async (p: string) =>
    JSON.parse(await Deno.readTextFile(join(ROOT, "vendor", "schemas", p)));
  const ajv = new Ajv({ allErrors: true, strict: false });
  return {
    evalResults: ajv.compile(await read("hf-eval-results/eval_results.schema.json")),
    aggregate: ajv.compile(await read("every-eval-ever/eval.schema.json")),
    instance: ajv.compile(await read("every-eval-ever/instance_level_eval.schema.json")),
  };
}

/**
 * Asserts a value validates (a plain call: no type narrowing of the value).
 *
 * @param validate A compiled schema.
 * @param value The value.
 * @param what What it is, for the message.
 * @throws {AssertionError} With ajv's errors when it does not.
 */
export function assertValid(validate: ValidateFunction, value: unknown, what = "value"): void {
  assert.ok(validate(value), `${what}: ${JSON.stringify(validate.errors)}`);
}

/** An Every Eval Ever export as written. */
export interface EeeExport {
  /** The samples file's path. */
  samples: string;
  /** The aggregate, parsed. */
  // deno-lint-ignore no-explicit-any
  aggregate: any;
  /** The aggregate's path under the output folder (its datastore path). */
  path: string;
}

/**
 * Runs `deno task export <dir> --format every-eval-ever --out <out>` and reads what it wrote.
 *
 * @param dir The run directory.
 * @param out The output folder.
 * @param args More flags.
 * @returns The samples path, the aggregate and its path under `out`.
 * @throws {AssertionError} When the export fails.
 */
export async function exportEee(dir: string, out: string, args: string[] = []): Promise<EeeExport> {
  const result = await runScript("export.ts", [
    dir,
    "--format",
    "every-eval-ever",
    "--out",
    out,
    ...args,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const paths = result.lines.map((l) => l.replace(/^\S+\s+/, ""));
  const samples = paths.find((p) => p.endsWith("_samples.jsonl"));
  const aggregate = paths.find((p) => p.endsWith(".json"));
  assert.ok(samples && aggregate, result.lines.join("\n"));
  return {
    samples,
    aggregate: JSON.parse(await Deno.readTextFile(aggregate)),
    path: relative(out, aggregate),
  };
}
