/**
 * Vendoring: turns the Typed Decisions Parquet file (and the train split's JSONL) into the files
 * under `vendor/typed-decisions/`, refusing anything whose content is not the pinned content.
 *
 * @module
 */
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { gzip, sha256Hex } from "../bytes.ts";
import { findCaseProblem } from "./_check_cases.ts";
import { findGoldInconsistency, questionSchemas } from "./_consistency.ts";
import {
  COLUMNS,
  DATASET_ID,
  DATASET_NAME,
  DATASET_URL,
  LICENSE_NAME,
  PINNED,
  resolveUrl,
  REVISION,
} from "./constants.ts";
import { DatasetIntegrityError } from "./integrity_error.ts";
import { loadDataset, VENDOR_DIR } from "./load.ts";
import { pyDumps, type PyValue } from "./python_json.ts";
import { parsePyJson, type PyParsed } from "./_python_json_parse.ts";
import type { Case, FileRef, Manifest, ManifestSplit, Split } from "./schemas.ts";

/** Options of {@linkcode vendorDataset}. */
export interface VendorOptions {
  /**
   * Local test-split source: a Parquet file laid out like the upstream one, or a JSONL file of
   * rows. When absent the pinned Parquet file is downloaded and its sha256 checked.
   *
   * @default {undefined} (download)
   */
  from?: string | URL | undefined;
  /**
   * Train-split source (JSONL of rows, or Parquet). When absent, a train file already in `out`
   * that passes `loadDataset` is kept; otherwise only the test split is vendored.
   *
   * @default {undefined}
   */
  trainFrom?: string | URL | undefined;
  /**
   * The Apache-2.0 text to copy to `LICENSE`.
   *
   * @default {VENDOR_DIR + "LICENSE"} (the committed copy)
   */
  licenseFrom?: string | URL | undefined;
  /**
   * Output folder.
   *
   * @default {VENDOR_DIR}
   */
  out?: string | URL | undefined;
  /**
   * Accept content that differs from the pinned hashes, because the source is a new upstream
   * revision (`revision` must then name it).
   *
   * @default {false}
   */
  newRevision?: boolean | undefined;
  /**
   * Upstream revision to download and record.
   *
   * @default {REVISION}
   */
  revision?: string | undefined;
  /**
   * The `fetch` used to download the pinned file.
   *
   * @default {globalThis.fetch}
   */
  fetch?: typeof fetch | undefined;
  /**
   * Abort signal for the download (a 120 s timeout applies in any case).
   *
   * @default {undefined}
   */
  signal?: AbortSignal | undefined;
  /**
   * Progress messages.
   *
   * @default {() => {}}
   */
  log?: (message: string) => void | undefined;
}

/** What {@linkcode vendorDataset} wrote. */
export interface VendorResult {
  /** The output folder. */
  dir: string;
  /** The manifest written. */
  manifest: Manifest;
  /** File names written in `dir`. */
  files: string[];
}

interface Source {
  name: string;
  bytes: Uint8Array;
  downloaded: boolean;
}

interface Built {
  entry: ManifestSplit;
  gz: Uint8Array;
  cases: Case[];
}

function toPath(path: string | URL): string {
  return path instanceof URL ? fileURLToPath(path) : path;
}

function refuse(split: Split, name: string, problem: string): never {
  throw new DatasetIntegrityError(
    `Cannot vendor the ${split} split from '${name}': ${problem}; nothing was written`,
    name,
  );
}

async function readSource(path: string | URL, split: Split): Promise<Source> {
  const file = toPath(path);
  try {
    return { name: file, bytes: await Deno.readFile(file), downloaded: false };
  } catch (error) {
    throw new Error(`Cannot read the ${split} source '${file}': ${(error as Error).message}`, {
      cause: error,
    });
  }
}

async function download(url: string, options: VendorOptions): Promise<Source> {
  const fetcher = options.fetch ?? globalThis.fetch;
  const timeout = AbortSignal.timeout(120_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await fetcher(url, { signal });
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    return { name: url, bytes: new Uint8Array(await response.arrayBuffer()), downloaded: true };
  } catch (error) {
    const { message, cause } = error as Error;
    const detail = cause instanceof Error ? `${message}: ${cause.message}` : message;
    throw new Error(
      `Cannot download '${url}': ${detail}; if the network is closed, vendor from a local copy ` +
        "with `deno task vendor --from ../shared/typed-decisions/test-00000-of-00001.parquet`",
      { cause: error },
    );
  }
}

function selectColumns(row: PyParsed, where: string): Map<string, PyValue> {
  if (!(row instanceof Map)) throw new TypeError(`Cannot vendor ${where}: expected a JSON object`);
  const out = new Map<string, PyValue>();
  for (const column of COLUMNS) {
    if (!row.has(column)) {
      throw new TypeError(`Cannot vendor ${where}: column '${column}' is missing`);
    }
    out.set(column, row.get(column)!);
  }
  return out;
}

const JSON_COLUMNS = new Set(["state", "questions", "gold"]);

async function parquetRows(source: Source): Promise<Map<string, PyValue>[]> {
  const { bytes } = source;
  const file = bytes.buffer.slice(
    bytes.byteOffset,
    bytes.byteOffset + bytes.byteLength,
  ) as ArrayBuffer;
  const decoder = new TextDecoder();
  let objects: Record<string, unknown>[];
  try {
    objects = await parquetReadObjects({
      file,
      compressors,
      columns: [...COLUMNS],
      // Keep JSON columns as text: JSON.parse would lose float-ness and key order.
      parsers: { jsonFromBytes: (b: Uint8Array) => b && decoder.decode(b) },
    });
  } catch (error) {
    throw new SyntaxError(`Cannot read '${source.name}' as Parquet: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return objects.map((object, i) => {
    const row = new Map<string, PyValue>();
    for (const column of COLUMNS) {
      const value = object[column];
      if (typeof value !== "string") {
        throw new TypeError(
          `Cannot vendor row ${i + 1} of '${source.name}': column '${column}' is not a string`,
        );
      }
      row.set(column, JSON_COLUMNS.has(column) ? parsePyJson(value) : value);
    }
    return row;
  });
}

function jsonlRows(source: Source): Map<string, PyValue>[] {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(source.bytes);
  } catch (error) {
    throw new SyntaxError(
      `Cannot read '${source.name}' as JSONL: it is neither Parquet nor UTF-8 text`,
      { cause: error },
    );
  }
  const lines = text.split("\n");
  const rows: Map<string, PyValue>[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const where = `line ${i + 1} of '${source.name}'`;
    let value: PyParsed;
    try {
      value = parsePyJson(line);
    } catch (error) {
      throw new SyntaxError(`Cannot read ${where}: ${(error as Error).message}`, { cause: error });
    }
    rows.push(selectColumns(value, where));
  }
  return rows;
}

function isParquet(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && new TextDecoder().decode(bytes.subarray(0, 4)) === "PAR1";
}

async function fileRef(path: string, bytes: Uint8Array): Promise<FileRef> {
  return { path, sha256: await sha256Hex(bytes), bytes: bytes.length };
}

async function build(
  split: Split,
  source: Source,
  options: { newRevision: boolean; revision: string; testSchemas?: Map<string, string> },
): Promise<Built> {
  const pinned = PINNED[split];
  const rows = isParquet(source.bytes) ? await parquetRows(source) : jsonlRows(source);
  const jsonl = new TextEncoder().encode(rows.map((row) => pyDumps(row) + "\n").join(""));
  const sha256 = await sha256Hex(jsonl);
  if (!options.newRevision && sha256 !== pinned.sha256) {
    refuse(
      split,
      source.name,
      `its rows hash to '${sha256}', not the pinned '${pinned.sha256}' of revision '${REVISION}' (pass --new-revision --revision REV if the source is a newer upstream revision)`,
    );
  }
  const cases = rows.map((row) => JSON.parse(pyDumps(row)) as Case);
  const problem = findCaseProblem(cases, { perWorkflow: pinned.perWorkflow }) ??
    findGoldInconsistency(cases);
  if (problem) refuse(split, source.name, problem);
  const schemas = questionSchemas(cases);
  if ("problem" in schemas) refuse(split, source.name, schemas.problem);
  for (const [workflow, text] of options.testSchemas ?? []) {
    if (schemas.schemas.get(workflow) !== text) {
      refuse(
        split,
        source.name,
        `the questions of workflow '${workflow}' differ from the test split's`,
      );
    }
  }
  const input = await fileRef(
    source.downloaded ? pinned.sourcePath : basename(source.name),
    source.bytes,
  );
  const pinnedSource = !options.newRevision;
  const entry: ManifestSplit = {
    source: {
      path: pinned.sourcePath,
      url: resolveUrl(pinned.sourcePath, options.revision),
      sha256: pinnedSource ? pinned.sourceSha256 : input.sha256,
      bytes: pinnedSource ? pinned.sourceBytes : input.bytes,
    },
    input,
    check: pinnedSource ? pinned.check : "new revision: no published hash to compare with",
    data: pinned.data,
    rows: rows.length,
    columns: [...COLUMNS],
    sha256,
  };
  return { entry, gz: await gzip(jsonl), cases };
}

function noticeText(manifest: Manifest): string {
  const lines = [
    `${DATASET_NAME}: vendored copy`,
    "",
    `This folder holds the ${DATASET_NAME} dataset published on Hugging Face by the LocalLLaMA`,
    `organization (${manifest.url}) under the Apache License 2.0;`,
    "LICENSE is its text. The dataset card names no individual authors.",
    `Upstream revision: ${manifest.revision}.`,
    "",
    "Provenance of each file (the vendor script read the file named under 'read from'; 'check'",
    "says how its content is known to equal the upstream file's):",
  ];
  for (const [split, entry] of Object.entries(manifest.splits)) {
    if (!entry) continue;
    lines.push(
      "",
      `${entry.data} (${split} split)`,
      `  upstream:  ${entry.source.path}, ${entry.source.bytes} bytes,`,
      `             sha256 ${entry.source.sha256}`,
      `  read from: ${entry.input.path}, ${entry.input.bytes} bytes,`,
      `             sha256 ${entry.input.sha256}`,
      `  check:     ${entry.check}`,
    );
  }
  lines.push(
    "",
    "What decibench changed: the file format, nothing else. It kept the columns",
    `${COLUMNS.join(", ")}; decoded the columns holding JSON text (state, questions,`,
    "gold) into JSON values, keeping their key order; wrote one row per line exactly as Python's",
    "json.dumps(row, ensure_ascii=False) would; and gzip-compressed the result. The upstream",
    "columns split, factors, label_agreement and n_questions are not included. No row was added,",
    "removed or edited. manifest.json records the sha256 of each decompressed file, and decibench",
    "checks it every time it loads the data.",
    "",
    "Only the test split is benchmark material. The train split is here for fitting baselines;",
    "published models were trained on it, so a score on it says little about a model.",
    "",
  );
  return lines.join("\n");
}

async function existingTrain(
  dir: string,
  log: (message: string) => void,
): Promise<Built | undefined> {
  try {
    await loadDataset({ dir, split: "train" });
    const manifest = JSON.parse(await Deno.readTextFile(join(dir, "manifest.json"))) as Manifest;
    const entry = manifest.splits.train;
    if (!entry || manifest.revision !== REVISION) return undefined;
    log(`train: kept the verified ${entry.data} already in '${dir}'`);
    return { entry, gz: await Deno.readFile(join(dir, entry.data)), cases: [] };
  } catch {
    return undefined;
  }
}

/**
 * Vendors Typed Decisions: reads the test split (pinned download or `from`) and optionally the
 * train split, keeps the columns `id, workflow, state, questions, gold`, decodes the JSON columns
 * keeping key order and float-ness, serialises each row like Python's `json.dumps(row,
 * ensure_ascii=False)`, checks the JSONL hash against the pinned one (unless `newRevision`), runs
 * the loader's structural checks and the gold consistency checks, then writes `test.jsonl.gz`
 * (and `train.jsonl.gz`), `manifest.json`, `LICENSE` and `NOTICE`. Output is byte-for-byte
 * reproducible.
 *
 * @param options Sources, output folder and revision.
 * @returns The folder, manifest and files written.
 * @throws {DatasetIntegrityError} When a source's content is not the pinned content or fails a
 * check; nothing is written then.
 * @throws {Error} When the download fails (the message suggests `--from`) or a file cannot be read.
 */
export async function vendorDataset(options: VendorOptions = {}): Promise<VendorResult> {
  const log = options.log ?? (() => {});
  const newRevision = options.newRevision ?? false;
  const revision = options.revision ?? REVISION;
  if (newRevision && revision === REVISION) {
    throw new TypeError(
      "Cannot vendor a new revision: 'revision' is the pinned one; pass --revision with the new commit",
    );
  }
  if (!newRevision && revision !== REVISION) {
    throw new TypeError(
      `Cannot vendor revision '${revision}': it is not the pinned one; add --new-revision`,
    );
  }
  const dir = toPath(options.out ?? VENDOR_DIR);
  const license = await Deno.readTextFile(
    toPath(options.licenseFrom ?? new URL("LICENSE", VENDOR_DIR)),
  );
  if (!license.includes("Apache License") || !license.includes("Version 2.0")) {
    throw new TypeError("Cannot vendor: the licence file is not the Apache License 2.0 text");
  }

  const testSource = options.from !== undefined
    ? await readSource(options.from, "test")
    : await download(resolveUrl(PINNED.test.sourcePath, revision), options);
  if (testSource.downloaded && !newRevision) {
    const ref = await fileRef(testSource.name, testSource.bytes);
    if (ref.sha256 !== PINNED.test.sourceSha256 || ref.bytes !== PINNED.test.sourceBytes) {
      refuse(
        "test",
        testSource.name,
        `got ${ref.bytes} bytes with sha256 '${ref.sha256}', not the pinned file`,
      );
    }
  }
  const test = await build("test", testSource, { newRevision, revision });
  log(`test: ${test.entry.rows} rows, sha256 ${test.entry.sha256}`);
  const schemas = questionSchemas(test.cases);
  const testSchemas = "schemas" in schemas ? schemas.schemas : undefined;
  let train: Built | undefined;
  if (options.trainFrom !== undefined) {
    const source = await readSource(options.trainFrom, "train");
    train = await build("train", source, {
      newRevision,
      revision,
      ...(testSchemas ? { testSchemas } : {}),
    });
    log(`train: ${train.entry.rows} rows, sha256 ${train.entry.sha256}`);
  } else if (!newRevision) {
    train = await existingTrain(dir, log);
  }
  if (!train) log("train: no source given, only the test split is vendored");

  const manifest: Manifest = {
    dataset: DATASET_ID,
    url: DATASET_URL,
    revision,
    license: LICENSE_NAME,
    splits: { test: test.entry, ...(train ? { train: train.entry } : {}) },
  };
  const files = new Map<string, Uint8Array>([[test.entry.data, test.gz]]);
  if (train) files.set(train.entry.data, train.gz);
  const encoder = new TextEncoder();
  files.set("manifest.json", encoder.encode(JSON.stringify(manifest, null, 2) + "\n"));
  files.set("LICENSE", encoder.encode(license));
  files.set("NOTICE", encoder.encode(noticeText(manifest)));

  await Deno.mkdir(dir, { recursive: true });
  for (const [name, bytes] of files) await Deno.writeFile(join(dir, `${name}.tmp`), bytes);
  for (const name of files.keys()) await Deno.rename(join(dir, `${name}.tmp`), join(dir, name));
  for (const split of Object.keys(manifest.splits) as Split[]) await loadDataset({ dir, split });
  return { dir, manifest, files: [...files.keys()] };
}
