/**
 * The fitted model's vendored files: `vendor/model/fitted.json.gz` (the weights, JSON, gzip) and
 * `vendor/model/manifest.json` (what it was trained on, how, held-out figures, the weights'
 * sha256). Encoding is deterministic, so retraining on the same data reproduces both files byte
 * for byte; loading checks the hash before anything is predicted.
 *
 * @module
 */
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzip, gzip, sha256Hex } from "../bytes.ts";
import { ModelIntegrityError } from "./integrity_error.ts";
import {
  type FittedModel,
  FittedModelSchema,
  type HeldOutFigures,
  MODEL_FORMAT,
  type ModelManifest,
  ModelManifestSchema,
} from "./schemas.ts";
import type { TrainResult } from "./train.ts";

/** The folder the fitted model is committed in. */
export const MODEL_DIR: URL = new URL("../../vendor/model/", import.meta.url);
/** File name of the weights. */
export const WEIGHTS_FILE = "fitted.json.gz";
/** File name of the manifest. */
export const MANIFEST_FILE = "manifest.json";

/** The training data a model was fitted on, as the manifest records it. */
export interface TrainingData {
  /** Dataset id (`LocalLLaMA/typed-decisions`). */
  dataset: string;
  /** Upstream revision. */
  revision: string;
  /** sha256 of the decompressed train JSONL. */
  sha256: string;
  /** Number of training cases. */
  rows: number;
}

/** The two files of a model, as bytes ready to write. */
export interface EncodedModel {
  /** `fitted.json.gz`. */
  weights: Uint8Array;
  /** `manifest.json` (pretty JSON with a final newline). */
  manifest: Uint8Array;
}

/** Options of {@linkcode writeModel} and {@linkcode loadModel}. */
export interface ModelDirOptions {
  /**
   * Folder of `manifest.json` and `fitted.json.gz`.
   *
   * @default {MODEL_DIR} (`vendor/model/` of this repository)
   */
  dir?: string | URL;
}

/** A loaded, verified model. */
export interface LoadedModel {
  /** The model. */
  model: FittedModel;
  /** Its manifest. */
  manifest: ModelManifest;
}

function round6(value: number): number {
  return +value.toFixed(6);
}

function roundFigures(figures: HeldOutFigures): HeldOutFigures {
  return {
    n: figures.n,
    accuracy: round6(figures.accuracy),
    klBeforeTemperature: round6(figures.klBeforeTemperature),
    kl: round6(figures.kl),
    brier: round6(figures.brier),
  };
}

/**
 * Encodes a training result as its two files. The same result gives the same bytes.
 *
 * @param result What `trainModel` returned.
 * @param data The training data it was fitted on.
 * @returns The weights file and the manifest, as bytes.
 * @example
 * ```ts ignore
 * const files = await encodeModel(trainModel(cases), { dataset, revision, sha256, rows });
 * ```
 */
export async function encodeModel(result: TrainResult, data: TrainingData): Promise<EncodedModel> {
  const json = new TextEncoder().encode(JSON.stringify(result.model));
  const weights = await gzip(json);
  const manifest: ModelManifest = {
    model: "fitted",
    format: MODEL_FORMAT,
    description:
      "Per-question softmax regression over hashed features of the state, fitted on the Typed Decisions train split's gold distributions, with per-question temperatures",
    trainedOn: { ...data, split: "train" },
    hyperParameters: { ...result.hyperParameters },
    featureCounts: Object.fromEntries(
      result.model.workflows.map((w) => [w.workflow, w.features.length]),
    ),
    heldOut: {
      fit: result.split.fit,
      heldOut: result.split.heldOut,
      overall: roundFigures(result.heldOut.overall),
      byQuestion: Object.fromEntries(
        Object.entries(result.heldOut.byQuestion).map(([k, v]) => [k, roundFigures(v)]),
      ),
    },
    weights: {
      path: WEIGHTS_FILE,
      bytes: weights.length,
      sha256: await sha256Hex(weights),
      jsonSha256: await sha256Hex(json),
    },
  };
  return {
    weights,
    manifest: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`),
  };
}

function toPath(dir: string | URL): string {
  return dir instanceof URL ? fileURLToPath(dir) : dir;
}

function display(path: string): string {
  const rel = relative(Deno.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/**
 * Writes a model's two files (creating the folder).
 *
 * @param encoded The files from {@linkcode encodeModel}.
 * @param options Target folder.
 * @returns The paths written.
 */
export async function writeModel(
  encoded: EncodedModel,
  options: ModelDirOptions = {},
): Promise<string[]> {
  const dir = toPath(options.dir ?? MODEL_DIR);
  await Deno.mkdir(dir, { recursive: true });
  const weightsPath = join(dir, WEIGHTS_FILE);
  const manifestPath = join(dir, MANIFEST_FILE);
  await Deno.writeFile(weightsPath, encoded.weights);
  await Deno.writeFile(manifestPath, encoded.manifest);
  return [weightsPath, manifestPath];
}

function fail(path: string, problem: string, cause?: unknown): never {
  const shown = display(path);
  throw new ModelIntegrityError(
    `Cannot load the fitted model: '${shown}' ${problem}; run \`deno task train\` to regenerate it`,
    shown,
    cause === undefined ? undefined : { cause },
  );
}

async function readBytes(path: string, what: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) fail(path, `is missing (${what})`, error);
    fail(path, `cannot be read: ${(error as Error).message}`, error);
  }
}

function parseJson(path: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    fail(path, `is not valid JSON: ${(error as Error).message}`, error);
  }
}

function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") || "(root)";
  return `field '${field}': ${issue?.message ?? "invalid"}`;
}

/**
 * Loads the vendored model and verifies it: the manifest's shape, the weights file's size and
 * sha256 (of the gzip file and of its JSON), and the weights' shape.
 *
 * @param options Folder to load from.
 * @returns The model and its manifest.
 * @throws {ModelIntegrityError} When a file is missing, unreadable, not JSON, of the wrong shape,
 *   or its hash differs from the manifest's.
 * @example
 * ```ts
 * import { loadModel } from "./model_file.ts";
 * const { model, manifest } = await loadModel();
 * if (manifest.trainedOn.split !== "train" || model.workflows.length !== 4) throw new Error("model");
 * ```
 */
export async function loadModel(options: ModelDirOptions = {}): Promise<LoadedModel> {
  const dir = toPath(options.dir ?? MODEL_DIR);
  const manifestPath = join(dir, MANIFEST_FILE);
  const parsed = ModelManifestSchema.safeParse(
    parseJson(manifestPath, await readBytes(manifestPath, "the model manifest")),
  );
  if (!parsed.success) fail(manifestPath, `is invalid: ${firstIssue(parsed.error)}`);
  const manifest = parsed.data;
  const weightsPath = join(dir, manifest.weights.path);
  const gz = await readBytes(weightsPath, "the model weights");
  const sha256 = await sha256Hex(gz);
  if (gz.length !== manifest.weights.bytes || sha256 !== manifest.weights.sha256) {
    fail(
      weightsPath,
      `has ${gz.length} bytes with sha256 ${sha256}, the manifest says ${manifest.weights.bytes} bytes with sha256 ${manifest.weights.sha256}`,
    );
  }
  let json: Uint8Array;
  try {
    json = await gunzip(gz);
  } catch (error) {
    fail(weightsPath, `is truncated or corrupt: ${(error as Error).message}`, error);
  }
  if (await sha256Hex(json) !== manifest.weights.jsonSha256) {
    fail(weightsPath, "decompresses to JSON whose sha256 differs from the manifest's");
  }
  const model = FittedModelSchema.safeParse(parseJson(weightsPath, json));
  if (!model.success) fail(weightsPath, `is invalid: ${firstIssue(model.error)}`);
  return { model: model.data, manifest };
}
