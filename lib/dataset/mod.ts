/**
 * Question sets: the Typed Decisions dataset (schemas of its rows, option order, the verified
 * loader, the pinned facts with the attribution line reports print, the Python-compatible JSON
 * serializer the vendored files are written with) and a user's own file (JSONL, CSV, Parquet)
 * with the questions a workflow declares, both opened through `openQuestionSet` (checked whole,
 * then read as a stream of cases) or loaded through `loadQuestionSet` into the same cases.
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
export {
  type Case,
  type ChoiceQuestion,
  type ChoiceQuestionDefinition,
  type DatasetSpec,
  type FileQuestionSetRecord,
  type GoldAnswer,
  type NoulQuestion,
  type NoulQuestionDefinition,
  type Question,
  QUESTION_SET_FORMATS,
  QUESTION_TYPES,
  type QuestionDefinition,
  type QuestionSetFormat,
  type QuestionSetRecord,
  type QuestionType,
  type ScoreQuestion,
  type ScoreQuestionDefinition,
  type Split,
  type TypedQuestionsRecord,
} from "./schemas.ts";
export {
  type CaseSelection,
  loadQuestionSet,
  type LoadQuestionSetOptions,
  openQuestionSet,
  type OpenQuestionSetOptions,
  type QuestionSet,
  type QuestionSetCasesOptions,
  type QuestionSetSource,
} from "./question_set.ts";
export {
  formatProblem,
  PROBLEMS_SHOWN,
  QuestionSetError,
  type QuestionSetErrorOptions,
  type QuestionSetProblem,
} from "./question_set_error.ts";
export { wireQuestion } from "./user_cases.ts";
export { CsvParser, type CsvRecord, CsvStream, CsvSyntaxError, parseCsv } from "./csv.ts";
export { optionsOf, questionsJson } from "./questions.ts";
export { type Dataset, type DatasetInfo, loadDataset, type LoadDatasetOptions } from "./load.ts";
export { DatasetIntegrityError } from "./integrity_error.ts";
export { attribution, type AttributionOptions } from "./attribution.ts";
export { type LevelsOf, levelText, type LevelTextOptions } from "./levels.ts";
export {
  openRecordedStates,
  RECORDED_LOOKUP_ROWS,
  type RecordedStates,
  type RecordedStatesOptions,
  type RecordedStatesProblem,
  withRecordedStates,
  type WithRecordedStatesOptions,
} from "./recorded_states.ts";
export {
  DATASET_ID,
  DATASET_URL,
  PINNED,
  type PinnedSplit,
  QUESTIONS_PER_CASE,
} from "./constants.ts";
