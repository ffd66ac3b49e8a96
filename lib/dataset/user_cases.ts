/**
 * A user question set's rows as cases: every row checked against the workflow's declaration
 * (id present and unique, state fields present, gold values that are options or distributions
 * over exactly them), problems collected with the line and field they are in.
 *
 * @module
 */
import type { RawFile, RawRow } from "./_read_rows.ts";
import type { QuestionSetProblem } from "./question_set_error.ts";
import { optionsOf } from "./questions.ts";
import type {
  Case,
  DatasetSpec,
  GoldAnswer,
  Question,
  QuestionDefinition,
  QuestionSetFormat,
} from "./schemas.ts";

/** Probabilities must sum to 1 within this (as answers must). */
export const GOLD_SUM_TOLERANCE = 1e-3;

/** Options of {@linkcode userCases}. */
export interface UserCasesOptions {
  /** The file name used in problems. */
  file: string;
  /**
   * The lane of every case when the dataset names no lane field.
   * @default "default"
   */
  lane?: string;
}

/** The cases of a user file, or what is wrong with it. */
export interface UserCases {
  /** The cases, in file order (empty when there are problems). */
  cases: Case[];
  /** Rows with a gold value, per question. */
  labelled: Record<string, number>;
  /** Every problem found, in file order. */
  problems: QuestionSetProblem[];
}

const NOUL_TEXT: Readonly<Record<string, string>> = {
  true: "true",
  false: "false",
  yes: "true",
  no: "false",
  "1": "true",
  "0": "false",
};

/** Keys the Typed Decisions gold object may carry beside `probabilities` and `label`. */
const GOLD_OBJECT_KEYS = new Set(["probabilities", "label", "confidence", "type", "noul", "score"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** A value as a message shows it: JSON, cut at 60 characters. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Where a non-finite number hides in a value (JSONL cannot hold one; Parquet can). */
function nonFinite(value: unknown): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(nonFinite);
  if (isObject(value)) return Object.values(value).some(nonFinite);
  return false;
}

/** The question as sent: its definition without `gold`. */
export function wireQuestion(definition: QuestionDefinition): Question {
  const { gold: _, ...question } = definition;
  return question as Question;
}

type Gold = { gold: GoldAnswer } | { problem: string } | null;

/**
 * Reads one gold value: null when there is none (the row is unscored for that question).
 */
function readGold(value: unknown, question: Question, format: QuestionSetFormat): Gold {
  if (isEmpty(value)) return null;
  const options = optionsOf(question);
  if (isObject(value)) return readDistribution(value, question, options);
  let label: string | undefined;
  let allowed = options.join(", ");
  switch (question.type) {
    case "noul":
      if (typeof value === "boolean") label = String(value);
      else if (format === "csv" && typeof value === "string") {
        label = NOUL_TEXT[value.trim().toLowerCase()];
      }
      if (format === "csv") allowed = "true, false, yes, no, 1, 0";
      break;
    case "choice":
      if (typeof value === "string" && options.includes(value)) label = value;
      break;
    case "score": {
      const text = typeof value === "number"
        ? String(value)
        : typeof value === "string" && format === "csv"
        ? value.trim()
        : "";
      if (/^(?:0|[1-9][0-9]*)$/.test(text) && options.includes(text)) label = text;
      if (label === undefined) {
        return { problem: `${shownText(value)} is not a level (${options.join(", ")})` };
      }
      break;
    }
  }
  if (label === undefined) {
    return {
      problem: `${shownText(value)} is not an option (${allowed})${
        format === "csv" ? "" : " or a distribution over them"
      }`,
    };
  }
  const probabilities: Record<string, number> = {};
  for (const option of options) probabilities[option] = option === label ? 1 : 0;
  return { gold: goldAnswer(question, label, probabilities) };
}

function shownText(value: unknown): string {
  return typeof value === "string"
    ? `"${value.length > 60 ? `${value.slice(0, 57)}…` : value}"`
    : shown(value);
}

function readDistribution(
  value: Record<string, unknown>,
  question: Question,
  options: readonly string[],
): Gold {
  // Typed Decisions' own gold shape: {label, probabilities, …}; else a bare distribution.
  const tdShape = isObject(value.probabilities) &&
    Object.keys(value).every((key) => GOLD_OBJECT_KEYS.has(key));
  const distribution = tdShape ? value.probabilities as Record<string, unknown> : value;
  const keys = Object.keys(distribution);
  const stray = keys.find((key) => !options.includes(key));
  if (stray !== undefined) {
    return {
      problem: `the distribution has "${stray}", which is not an option (${options.join(", ")})`,
    };
  }
  const missing = options.find((option) => !keys.includes(option));
  if (missing !== undefined) {
    return {
      problem: `the distribution has no "${missing}"; give a probability for every option (${
        options.join(", ")
      })`,
    };
  }
  let sum = 0;
  for (const key of keys) {
    const p = distribution[key];
    if (typeof p !== "number" || !Number.isFinite(p) || p < 0 || p > 1) {
      return { problem: `probability of "${key}" is ${shown(p)}, not a number in [0, 1]` };
    }
    sum += p;
  }
  if (Math.abs(sum - 1) > GOLD_SUM_TOLERANCE) {
    return { problem: `probabilities sum to ${sum}, not 1 (± ${GOLD_SUM_TOLERANCE})` };
  }
  // Key order is kept as written: sums over it then match the same gold scored elsewhere.
  const probabilities = distribution as Record<string, number>;
  let label: string;
  if (tdShape && value.label !== undefined) {
    if (typeof value.label !== "string" || !options.includes(value.label)) {
      return {
        problem: `label ${shown(value.label)} is not an option (${options.join(", ")})`,
      };
    }
    label = value.label;
  } else {
    label = options[0] as string;
    for (const option of options) {
      if ((probabilities[option] as number) > (probabilities[label] as number)) label = option;
    }
  }
  return { gold: goldAnswer(question, label, probabilities) };
}

function goldAnswer(
  question: Question,
  label: string,
  probabilities: Record<string, number>,
): GoldAnswer {
  const gold: GoldAnswer = {
    type: question.type,
    label,
    probabilities,
    confidence: probabilities[label] as number,
  };
  if (question.type === "noul") gold.noul = probabilities.true as number;
  if (question.type === "score") {
    gold.score = Object.entries(probabilities).reduce((s, [k, p]) => s + Number(k) * p, 0);
  }
  return gold;
}

function readId(value: unknown): { id: string } | { problem: string } {
  if (isEmpty(value)) return { problem: "missing: every row needs an id" };
  if (typeof value === "string") return { id: value };
  if (typeof value === "number" && Number.isInteger(value)) return { id: String(value) };
  return { problem: `${shown(value)} is not an id (a string or an integer)` };
}

function readLane(value: unknown): { lane: string } | { problem: string } {
  if (isEmpty(value)) {
    return { problem: "missing: every row needs a lane (the dataset's lane field)" };
  }
  if (typeof value === "string") return { lane: value };
  if (typeof value === "number" || typeof value === "boolean") return { lane: String(value) };
  return { problem: `${shown(value)} is not a lane name (a string)` };
}

/**
 * Checks a read file's rows against the workflow's declaration and builds the cases. Every row is
 * checked; nothing stops at the first problem. Fields the declaration names but the file lacks
 * entirely (a CSV or Parquet column, or a JSONL field no row has) are reported once, for the file.
 *
 * @param file The rows as read.
 * @param spec The workflow's `dataset`.
 * @param definitions The workflow's `questions`.
 * @param options File name and default lane.
 * @returns The cases (sharing one frozen questions object), labelled counts and problems.
 */
export function userCases(
  file: RawFile,
  spec: DatasetSpec,
  definitions: Readonly<Record<string, QuestionDefinition>>,
  options: UserCasesOptions,
): UserCases {
  const problems: QuestionSetProblem[] = [...file.problems];
  const problem = (line: number | null, field: string | null, message: string): void => {
    problems.push({ file: options.file, line, field, message });
  };
  const stateFields = typeof spec.state === "string" ? [spec.state] : spec.state;
  const questions: Record<string, Question> = {};
  for (const [name, definition] of Object.entries(definitions)) {
    questions[name] = deepFreeze(wireQuestion(definition));
  }
  Object.freeze(questions);
  const labelled: Record<string, number> = Object.fromEntries(
    Object.keys(definitions).map((name) => [name, 0]),
  );
  // Fields every row must have: a whole column missing is one problem, not one per row.
  const required: [string, string][] = [
    [spec.id, "the id field"],
    ...stateFields.map((f): [string, string] => [f, "a state field"]),
    ...(spec.lane !== undefined ? [[spec.lane, "the lane field"] as [string, string]] : []),
  ];
  const golds = Object.entries(definitions).flatMap(([name, d]) =>
    d.gold === undefined
      ? []
      : [[d.gold, `the gold field of question "${name}"`] as [string, string]]
  );
  const absent = new Set<string>();
  const header = file.columns;
  const known = header ?? [...new Set(file.rows.flatMap((r) => Object.keys(r.values)))];
  if (header !== null || file.rows.length > 0) {
    for (const [field, role] of [...required, ...golds]) {
      if (known.includes(field) || absent.has(field)) continue;
      absent.add(field);
      const listed = known.length > 12 ? `${known.slice(0, 12).join(", ")}, …` : known.join(", ");
      problem(
        header !== null && file.format === "csv" ? 1 : null,
        field,
        `no such ${header !== null ? "column" : "field in any row"} (${role}); the file has ${
          listed || "none"
        }`,
      );
    }
  }
  if (file.rows.length === 0 && problems.length === 0) {
    problem(null, null, "has no rows; a question set needs at least one case");
  }
  const seen = new Map<string, number>();
  const cases: Case[] = [];
  for (const row of file.rows) {
    const item = rowCase(row, spec, stateFields, definitions, questions, absent, file.format, {
      problem,
      seen,
      lane: options.lane ?? "default",
    });
    if (item === null) continue;
    for (const name of Object.keys(item.gold)) labelled[name] = (labelled[name] ?? 0) + 1;
    cases.push(item);
  }
  return { cases: problems.length ? [] : cases, labelled, problems };
}

function rowCase(
  row: RawRow,
  spec: DatasetSpec,
  stateFields: readonly string[],
  definitions: Readonly<Record<string, QuestionDefinition>>,
  questions: Record<string, Question>,
  absent: ReadonlySet<string>,
  format: QuestionSetFormat,
  context: {
    problem: (line: number | null, field: string | null, message: string) => void;
    seen: Map<string, number>;
    lane: string;
  },
): Case | null {
  const { values, line } = row;
  const { problem, seen } = context;
  let ok = true;
  const fail = (field: string, message: string): void => {
    problem(line, field, message);
    ok = false;
  };
  let id = "";
  if (!absent.has(spec.id)) {
    const read = readId(values[spec.id]);
    if ("problem" in read) fail(spec.id, read.problem);
    else {
      id = read.id;
      const first = seen.get(id);
      if (first !== undefined) {
        fail(
          spec.id,
          `"${id}" repeats the id of ${
            format === "parquet" ? "row" : "line"
          } ${first}; ids must be unique`,
        );
      } else seen.set(id, line);
    }
  } else ok = false;
  let lane = context.lane;
  if (spec.lane !== undefined) {
    if (absent.has(spec.lane)) ok = false;
    else {
      const read = readLane(values[spec.lane]);
      if ("problem" in read) fail(spec.lane, read.problem);
      else lane = read.lane;
    }
  }
  const parts: Record<string, unknown> = {};
  for (const field of stateFields) {
    if (absent.has(field)) {
      ok = false;
      continue;
    }
    if (!Object.hasOwn(values, field)) {
      fail(field, "missing: every row needs each state field");
      continue;
    }
    const value = values[field];
    if (nonFinite(value)) fail(field, "holds a number that is not finite; JSON cannot send it");
    parts[field] = value;
  }
  const gold: Record<string, GoldAnswer> = {};
  for (const [name, definition] of Object.entries(definitions)) {
    if (definition.gold === undefined || absent.has(definition.gold)) continue;
    const read = readGold(values[definition.gold], questions[name] as Question, format);
    if (read === null) continue;
    if ("problem" in read) fail(definition.gold, read.problem);
    else gold[name] = read.gold;
  }
  if (!ok) return null;
  const state = typeof spec.state === "string" ? parts[spec.state] : parts;
  return { id, workflow: lane, state, questions, gold };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
