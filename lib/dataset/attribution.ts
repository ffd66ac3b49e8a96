/**
 * The attribution line reports print for the dataset (Apache-2.0 asks that users credit the work).
 *
 * @module
 */
import { DATASET_NAME } from "./constants.ts";
import type { DatasetInfo } from "./load.ts";

/** Options of {@linkcode attribution}. */
export interface AttributionOptions {
  /**
   * `text` for terminals; `markdown` links the dataset page.
   *
   * @default {"text"}
   */
  format?: "text" | "markdown" | undefined;
}

/**
 * The one-line credit of the dataset a run used, for terminal summaries and reports. A user
 * question set is named by its file, row count and sha256 instead.
 *
 * @param info Where the dataset comes from (`loadDataset()`'s `info`).
 * @param options The output format.
 * @returns For example `Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)`.
 * @example
 * ```ts
 * import { attribution } from "./attribution.ts";
 * import { loadDataset } from "./load.ts";
 * const { info } = await loadDataset();
 * attribution(info); // "Typed Decisions (LocalLLaMA/typed-decisions, revision e039ebf, Apache-2.0)"
 * ```
 */
export function attribution(
  info: Pick<DatasetInfo, "dataset" | "revision" | "license" | "url" | "questionSet">,
  options: AttributionOptions = {},
): string {
  const set = info.questionSet;
  if (set?.kind === "file") {
    const what = `${set.rows} rows, sha256 ${set.sha256.slice(0, 12)}`;
    return options.format === "markdown" ? `\`${set.path}\` (${what})` : `${set.path} (${what})`;
  }
  const revision = info.revision.slice(0, 7);
  if (options.format === "markdown") {
    return `[${DATASET_NAME}](${info.url}) (\`${info.dataset}\`, revision \`${revision}\`, ${info.license})`;
  }
  return `${DATASET_NAME} (${info.dataset}, revision ${revision}, ${info.license})`;
}
