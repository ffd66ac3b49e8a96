/**
 * The shapes every export format shares: what it reads (a loaded run), its options, and the files
 * it produces.
 *
 * @module
 */
import type { DecisionRecord, RunJson } from "../record/mod.ts";

/** The export format names, written once (the CLI's `--format` choices). */
export const EXPORT_FORMAT_NAMES = ["eval-results", "every-eval-ever", "csv", "parquet"] as const;
/** An export format name. */
export type ExportFormatName = (typeof EXPORT_FORMAT_NAMES)[number];

/** What an export reads: a run record and its decisions (an `OpenedRun` is one). */
export interface ExportInput {
  /** `run.json`. */
  run: RunJson;
  /**
   * Streams every decision of the run, in record order; an export that needs them goes through
   * them once, as it writes.
   *
   * @returns The decisions, one at a time.
   */
  decisions(): AsyncIterable<DecisionRecord>;
  /**
   * The run directory: a user file's relative recorded path is also looked for from there.
   * @default undefined (the working directory only)
   */
  dir?: string | undefined;
}

/** Options of the export formats (each format reads the ones it needs). */
export interface ExportOptions {
  /**
   * Whether the model was trained (fine-tuned) on the Typed Decisions train split. Required by
   * `eval-results`: the card keeps fine-tuned and zero-shot rows apart.
   * @default undefined (not stated)
   */
  trainedOnTrain?: boolean | undefined;
  /**
   * The model's id in Hugging Face form (`developer/model`), for `every-eval-ever`.
   * @default the model the server reported, else the model sent (`decibench/<model>` for the
   * embedded reference server, `unknown/<model>` when it names no developer)
   */
  modelId?: string | undefined;
  /**
   * The organisation that ran the evaluation (`every-eval-ever`'s `source_organization_name`).
   * @default "unknown"
   */
  organization?: string | undefined;
  /**
   * The evaluator's relationship to the model (`every-eval-ever`'s `evaluator_relationship`).
   * @default "first_party" for the embedded reference server, else "third_party"
   */
  relationship?: "first_party" | "third_party" | "collaborative" | "other" | undefined;
  /**
   * Whether the model's weights are published (`every-eval-ever`'s `model_availability`).
   * @default "open_weights" for the embedded reference server, else "unknown"
   */
  availability?: "open_weights" | "closed_weights" | "unknown" | undefined;
  /**
   * A public link to the run's evidence (traces, logs) for `eval-results`' `source.url`.
   * @default undefined (no source block)
   */
  sourceUrl?: string | undefined;
  /**
   * The export time (`retrieved_timestamp`).
   * @default new Date()
   */
  now?: Date | undefined;
  /**
   * Folder of the vendored dataset, to read each case's state for `every-eval-ever`.
   * @default the vendored Typed Decisions
   */
  datasetDir?: string | undefined;
}

/** One file an export produces. */
export interface ExportFile {
  /** Path relative to the export root, with `/` separators (e.g. `data/…/<uuid>.json`). */
  path: string;
  /**
   * The file's content in pieces — text, or bytes for a binary format — produced as they are
   * written (a file that grows with the run is never held whole); each call produces it anew.
   *
   * @returns The pieces, in order.
   */
  chunks(): AsyncIterable<string | Uint8Array>;
}

/**
 * An export file whose text is already at hand (a small file: a summary, a record).
 *
 * @param path Path relative to the export root.
 * @param text The file's text.
 * @returns The file.
 */
export function textFile(path: string, text: string): ExportFile {
  return {
    path,
    chunks: async function* () {
      yield text;
    },
  };
}

/**
 * Joins an export file's pieces into one string (for tests and small files).
 *
 * @param file The file.
 * @returns Its whole text.
 */
export async function fileText(file: ExportFile): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of file.chunks()) {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** What one export produced. */
export interface ExportResult {
  /** The format. */
  format: ExportFormatName;
  /** The files, in the order they should be written (samples before the record that names them). */
  files: ExportFile[];
}
