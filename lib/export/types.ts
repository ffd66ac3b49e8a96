/**
 * The shapes every export format shares: what it reads (a loaded run), its options, and the files
 * it produces.
 *
 * @module
 */
import type { DecisionRecord, RunJson } from "../record/mod.ts";

/** The export format names, written once (the CLI's `--format` choices). */
export const EXPORT_FORMAT_NAMES = ["eval-results", "every-eval-ever", "csv"] as const;
/** An export format name. */
export type ExportFormatName = (typeof EXPORT_FORMAT_NAMES)[number];

/** What an export reads: a run record and its decisions. */
export interface ExportInput {
  /** `run.json`. */
  run: RunJson;
  /** Every decision of the run, in record order. */
  records: readonly DecisionRecord[];
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
  /** The file's text. */
  text: string;
}

/** What one export produced. */
export interface ExportResult {
  /** The format. */
  format: ExportFormatName;
  /** The files, in the order they should be written (samples before the record that names them). */
  files: ExportFile[];
}
