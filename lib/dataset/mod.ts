/**
 * The Typed Decisions dataset: schemas of its rows, option order, the verified loader, the
 * pinned facts (dataset id, revision, licence) with the attribution line reports print, and the
 * Python-compatible JSON serializer the vendored files are written with.
 *
 * @example
 * ```ts
 * import { attribution, loadDataset } from "./mod.ts";
 * const { cases, info } = await loadDataset();
 * console.log(cases.length, attribution(info));
 * ```
 *
 * @module
 */
export type {
  Case,
  ChoiceQuestion,
  FileRef,
  GoldAnswer,
  Manifest,
  ManifestSplit,
  NoulQuestion,
  Question,
  QuestionType,
  ScoreQuestion,
  Split,
} from "./schemas.ts";
export { QUESTION_TYPES } from "./schemas.ts";
export { optionsOf } from "./questions.ts";
export {
  type Dataset,
  type DatasetInfo,
  loadDataset,
  type LoadDatasetOptions,
  VENDOR_DIR,
} from "./load.ts";
export { DatasetIntegrityError } from "./integrity_error.ts";
export { attribution, type AttributionOptions } from "./attribution.ts";
export {
  COLUMNS,
  DATASET_ID,
  DATASET_NAME,
  DATASET_URL,
  LICENSE_NAME,
  PINNED,
  type PinnedSplit,
  QUESTIONS_PER_CASE,
  resolveUrl,
  REVISION,
  WORKFLOWS,
} from "./constants.ts";
export { pyDumps, PyFloat, pyFloatRepr, pyQuote, type PyValue } from "./python_json.ts";
export { parsePyJson, type PyObject, type PyParsed } from "./python_json_parse.ts";
