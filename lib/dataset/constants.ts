/**
 * What is pinned about Typed Decisions: the dataset, its revision, licence, the upstream files and
 * the hashes the vendored JSONL must have.
 *
 * @module
 */
import type { Split } from "./schemas.ts";

/** Hugging Face id of the dataset. */
export const DATASET_ID = "LocalLLaMA/typed-decisions";
/** Human name of the dataset. */
export const DATASET_NAME = "Typed Decisions";
/** Dataset page. */
export const DATASET_URL = "https://huggingface.co/datasets/LocalLLaMA/typed-decisions";
/** The pinned upstream revision (git commit of the dataset repository). */
export const REVISION = "e039ebffcc280174dd354227424fb2b249f191de";
/** SPDX name of the dataset's licence. */
export const LICENSE_NAME = "Apache-2.0";
/** The four workflows, each with its own five questions. */
export const WORKFLOWS: readonly string[] = [
  "agent_trace_observability",
  "customer_service",
  "invoice_processing",
  "security_incidents",
];
/** Columns kept from the Parquet file, in row order. */
export const COLUMNS: readonly string[] = ["id", "workflow", "state", "questions", "gold"];
/** Questions per case. */
export const QUESTIONS_PER_CASE = 5;

/** What is pinned about one split. */
export interface PinnedSplit {
  /** Path of the upstream Parquet file inside the dataset repository. */
  sourcePath: string;
  /** sha256 of the upstream Parquet file at {@linkcode REVISION}. */
  sourceSha256: string;
  /** Size of the upstream Parquet file in bytes. */
  sourceBytes: number;
  /** sha256 of the vendored JSONL (decompressed), serialised like Python's `json.dumps`. */
  sha256: string;
  /** Name of the vendored file. */
  data: string;
  /** Number of cases. */
  rows: number;
  /** Cases per workflow. */
  perWorkflow: number;
  /** How the content is known to be the upstream content. */
  check: string;
}

/** The pinned facts of each split. */
export const PINNED: Readonly<Record<Split, PinnedSplit>> = {
  test: {
    sourcePath: "all/test-00000-of-00001.parquet",
    sourceSha256: "4f294f218ea1da27f3efef936359389c62ea4d3973a41457732990f1d31b647c",
    sourceBytes: 222140,
    sha256: "78a228c8be4244389a9977f8bafa8068cadac20ba8879c94116c963e0902831f",
    data: "test.jsonl.gz",
    rows: 400,
    perWorkflow: 100,
    check: "JSONL sha256 equals the hash another public harness published for the pinned file",
  },
  train: {
    sourcePath: "all/train-00000-of-00001.parquet",
    sourceSha256: "46a58d63edfd86e23229c78afe8b72307bb4ca9fb0e8df180cabb3c67ec9dcd5",
    sourceBytes: 598824,
    sha256: "e6725ca854fb345bb8a1c9d0fb4c5a31756b486d7d8d9f15a19ef6f1b8d4c37b",
    data: "train.jsonl.gz",
    rows: 1200,
    perWorkflow: 300,
    check: "no published hash; checked for consistency: unique ids, 300 per workflow, questions " +
      "equal to the test split's, gold sums, labels, noul, score and choice confidence",
  },
};

/**
 * sha256 of the vendored `manifest.json` as `deno task vendor` writes it at {@linkcode REVISION}:
 * a manifest with exactly these bytes is the one checked in, valid by construction, so loading
 * skips its schema check (a few ms of every start-up). Any other manifest is checked in full.
 */
export const VENDORED_MANIFEST_SHA256 =
  "fcd823128942674cbd4d87a783ff4aff81c4012295e79a06159e57a5c2c20fd7";

/**
 * The download URL of a file of the dataset at a revision.
 *
 * @param path Path inside the dataset repository (`all/test-00000-of-00001.parquet`).
 * @param revision The revision.
 * @returns The `resolve` URL on Hugging Face.
 */
export function resolveUrl(path: string, revision: string): string {
  return `${DATASET_URL}/resolve/${revision}/${path}`;
}
