/**
 * Loads a vendored Typed Decisions split and verifies it on every load: manifest, gzip, sha256,
 * rows, ids, workflows, questions and gold. Anything wrong stops with a `DatasetIntegrityError`
 * before a single request is sent.
 *
 * Verifying is cheap: content whose sha256 is the pinned one is the pinned content, which passes
 * every row check (a test proves it), so those checks run only for other content; and within a
 * process a data file whose compressed bytes hash to what was verified before is not
 * decompressed and hashed again.
 *
 * @module
 */
import { isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzip, sha256Hex } from "../bytes.ts";
import { findCaseProblem } from "./_check_cases.ts";
import { DATASET_ID, PINNED, REVISION, VENDORED_MANIFEST_SHA256 } from "./constants.ts";
import { DatasetIntegrityError } from "./integrity_error.ts";
import {
  type Case,
  type Manifest,
  ManifestSchema,
  type QuestionSetRecord,
  type Split,
} from "./schemas.ts";

/** The folder the vendored dataset is committed in. */
export const VENDOR_DIR: URL = new URL("../../vendor/typed-decisions/", import.meta.url);

/** Where a loaded split comes from, for run records and reports. */
export interface DatasetInfo {
  /** Hugging Face dataset id (`LocalLLaMA/typed-decisions`). */
  dataset: string;
  /** Upstream revision (commit). */
  revision: string;
  /** SPDX licence name (`Apache-2.0`). */
  license: string;
  /** The split loaded (`file` for a user question set). */
  split: Split | "file";
  /** Dataset page. */
  url: string;
  /** sha256 of the decompressed JSONL, as verified. */
  sha256: string;
  /** Number of cases. */
  rows: number;
  /**
   * How the question set differs from the Typed Decisions card protocol: a subset of its
   * questions, or a user file. Absent for the card protocol (every question of every case).
   */
  questionSet?: QuestionSetRecord | undefined;
}

/** A loaded, verified split. */
export interface Dataset {
  /** The cases, in vendored order. */
  cases: Case[];
  /** Where they come from. */
  info: DatasetInfo;
}

/** Options of {@linkcode loadDataset}. */
export interface LoadDatasetOptions {
  /**
   * Which split. Only `test` is benchmark material; `train` is for fitting baselines.
   *
   * @default {"test"}
   */
  split?: Split | undefined;
  /**
   * Folder holding `manifest.json` and the `.jsonl.gz` files.
   *
   * @default {VENDOR_DIR} (`vendor/typed-decisions/` of this repository)
   */
  dir?: string | URL | undefined;
}

function toPath(dir: string | URL): string {
  return dir instanceof URL ? fileURLToPath(dir) : dir;
}

function display(path: string): string {
  const rel = relative(Deno.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

class Verifier {
  constructor(readonly split: Split) {}

  fail(file: string, problem: string, cause?: unknown): never {
    const shown = display(file);
    throw new DatasetIntegrityError(
      `Cannot load the ${this.split} split: '${shown}' ${problem}; run \`deno task vendor\` to regenerate it`,
      shown,
      cause === undefined ? undefined : { cause },
    );
  }

  async read(file: string, what: string): Promise<Uint8Array> {
    try {
      return await Deno.readFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) this.fail(file, `is missing (${what})`, error);
      this.fail(file, `cannot be read: ${(error as Error).message}`, error);
    }
  }

  async manifest(file: string): Promise<Manifest> {
    const bytes = await this.read(file, "the dataset manifest");
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (error) {
      this.fail(file, `is not valid JSON: ${(error as Error).message}`, error);
    }
    // The checked-in manifest, byte for byte: its schema check always passes and changes nothing.
    if (await sha256Hex(bytes) === VENDORED_MANIFEST_SHA256) return json as Manifest;
    const parsed = ManifestSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.map(String).join(".") || "(root)";
      this.fail(file, `is invalid: field '${field}': ${issue?.message ?? "invalid"}`);
    }
    const manifest = parsed.data;
    if (manifest.dataset !== DATASET_ID) {
      this.fail(file, `describes dataset '${manifest.dataset}', expected '${DATASET_ID}'`);
    }
    return manifest;
  }

  async rows(
    file: string,
    expectedSha256: string,
  ): Promise<{ text: string; sha256: string; gzSha256: string; known: boolean }> {
    const gz = await this.read(file, "the vendored data");
    if (gz.length === 0) this.fail(file, "is empty");
    // Verified before in this process: the same compressed bytes hold the same content.
    const gzSha256 = await sha256Hex(gz);
    const seen = verified.get(file);
    if (seen && seen.gzSha256 === gzSha256 && seen.sha256 === expectedSha256) {
      return { text: seen.text, sha256: seen.sha256, gzSha256, known: true };
    }
    let bytes: Uint8Array;
    try {
      bytes = await gunzip(gz);
    } catch (error) {
      this.fail(file, `is truncated or corrupt: ${(error as Error).message}`, error);
    }
    const sha256 = await sha256Hex(bytes);
    if (sha256 !== expectedSha256) {
      this.fail(
        file,
        `has been changed: its content has sha256 '${sha256}', the manifest says '${expectedSha256}'`,
      );
    }
    const text = new TextDecoder().decode(bytes);
    if (!text.endsWith("\n")) this.fail(file, "does not end with a newline");
    return { text, sha256, gzSha256, known: false };
  }
}

/** Data files verified in this process: the sha256 of their compressed bytes, and their text. */
const verified = new Map<string, { gzSha256: string; sha256: string; text: string }>();

/**
 * Loads and verifies one vendored split of Typed Decisions.
 *
 * Every load checks: the manifest (present, valid, this dataset, with an entry for the split; under
 * the pinned revision, the pinned hash), the gzip (present, complete), the sha256 of the
 * decompressed JSONL against the manifest, the row count, unique ids, the four workflows with 100
 * cases each (300 for train), five questions per case that pass `QuestionSchema`, and a gold
 * answer per question keyed by exactly its options. Loading the 400 test cases takes tens of
 * milliseconds.
 *
 * @param options Which split and which folder.
 * @returns The cases (plain objects from `JSON.parse`, in vendored order) and where they come from.
 * @throws {DatasetIntegrityError} When any check fails; the message names the file and the problem.
 * @example
 * ```ts
 * import { loadDataset } from "./load.ts";
 * const { cases, info } = await loadDataset();
 * if (cases.length !== 400 || info.split !== "test") throw new Error("unexpected dataset");
 * ```
 */
export async function loadDataset(options: LoadDatasetOptions = {}): Promise<Dataset> {
  const split = options.split ?? "test";
  const pinned = PINNED[split];
  if (!pinned) {
    throw new RangeError(`Cannot load split '${String(split)}': expected 'test' or 'train'`);
  }
  const dir = toPath(options.dir ?? VENDOR_DIR);
  const verify: Verifier = new Verifier(split);
  const manifestFile = join(dir, "manifest.json");
  const manifest = await verify.manifest(manifestFile);
  const entry = manifest.splits[split];
  if (!entry) verify.fail(manifestFile, `has no '${split}' split`);
  if (manifest.revision === REVISION && entry.sha256 !== pinned.sha256) {
    verify.fail(
      manifestFile,
      `claims the pinned revision '${REVISION}' but gives the ${split} split sha256 '${entry.sha256}', not the pinned '${pinned.sha256}'`,
    );
  }
  const dataFile = join(dir, entry.data);
  // Only the vendored files are kept decompressed (other folders are tests' and one-offs').
  const { text, sha256, gzSha256, known } = await verify.rows(dataFile, entry.sha256);
  const lines = text.slice(0, -1).split("\n");
  if (lines.length !== entry.rows) {
    verify.fail(dataFile, `has ${lines.length} rows, the manifest says ${entry.rows}`);
  }
  const cases: unknown[] = new Array(lines.length);
  for (const [i, line] of lines.entries()) {
    try {
      cases[i] = JSON.parse(line);
    } catch (error) {
      verify.fail(dataFile, `line ${i + 1} is not valid JSON: ${(error as Error).message}`, error);
    }
  }
  // The pinned content passes every row check (load_test proves it): only other content, a new
  // revision vendored with --new-revision, needs them.
  const isPinned = sha256 === pinned.sha256;
  if (!known && !isPinned) {
    const problem = findCaseProblem(cases, { perWorkflow: pinned.perWorkflow });
    if (problem) verify.fail(dataFile, problem);
  }
  if (!known) verified.set(dataFile, { gzSha256, sha256, text });
  return {
    cases: shareQuestions(cases as Case[], isPinned),
    info: {
      dataset: manifest.dataset,
      revision: manifest.revision,
      license: manifest.license,
      split,
      url: manifest.url,
      sha256,
      rows: lines.length,
    },
  };
}

/**
 * Makes cases with identical questions share one frozen questions object (a workflow asks the
 * same five questions of every case), so engines can serialise each question set once. In the
 * pinned content every case of a workflow has the same questions (load_test proves it), so the
 * workflow is the key there; other content is compared by its questions' JSON.
 */
function shareQuestions(cases: Case[], pinned: boolean): Case[] {
  const shared = new Map<string, Case["questions"]>();
  for (const item of cases) {
    const key = pinned ? item.workflow : JSON.stringify(item.questions);
    let questions = shared.get(key);
    if (questions === undefined) {
      questions = deepFreeze(item.questions);
      shared.set(key, questions);
    }
    item.questions = questions;
  }
  return cases;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
