/**
 * The export formats as a registry: one definition per format (name, what it is, how to build
 * it), so the CLI's `--format` choices and its help come from one place.
 *
 * @module
 */
import { exportCsv } from "./csv.ts";
import { exportEvalResults } from "./eval_results.ts";
import { exportEveryEvalEver } from "./every_eval_ever.ts";
import { exportParquet } from "./parquet.ts";
import type { ExportFormatName, ExportInput, ExportOptions, ExportResult } from "./types.ts";

/** One export format. */
export interface ExportFormat {
  /** `--format` value. */
  readonly name: ExportFormatName;
  /** One line saying what it produces. */
  readonly description: string;
  /** Whether it produces one file (so `--out` may name that file, or `-` for stdout). */
  readonly singleFile: boolean;
  /**
   * Builds the export.
   *
   * @param input The run and its decisions.
   * @param options The export options.
   * @returns The files.
   */
  build(input: ExportInput, options: ExportOptions): Promise<ExportResult>;
}

/** Every export format, in the order the CLI lists them. */
export const EXPORT_FORMAT_REGISTRY: readonly ExportFormat[] = [
  {
    name: "eval-results",
    description:
      "Hugging Face .eval_results/typed-decisions.yaml for the Typed Decisions leaderboard (complete card-protocol runs)",
    singleFile: true,
    build: (input, options) => exportEvalResults(input, options),
  },
  {
    name: "every-eval-ever",
    description:
      "Every Eval Ever aggregate record and instance-level samples (data/<typed-decisions or the workflow>/<developer>/<model>/<uuid>.json)",
    singleFile: false,
    build: (input, options) => exportEveryEvalEver(input, options),
  },
  {
    name: "csv",
    description: "decisions.csv: one row per decision, for spreadsheets",
    singleFile: true,
    build: (input) => Promise.resolve(exportCsv(input)),
  },
  {
    name: "parquet",
    description:
      "decisions.parquet: one row per decision, distributions as MAP columns, for DuckDB, Polars or Spark",
    singleFile: true,
    build: (input) => Promise.resolve(exportParquet(input)),
  },
];

/**
 * Looks an export format up by name.
 *
 * @param name The `--format` value.
 * @returns The format, or undefined when there is none by that name.
 */
export function exportFormat(name: string): ExportFormat | undefined {
  return EXPORT_FORMAT_REGISTRY.find((f) => f.name === name);
}
