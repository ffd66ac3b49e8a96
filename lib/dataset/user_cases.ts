/**
 * A user question set's rows as cases, one row at a time: every row checked against the
 * workflow's declaration (id present, unique and printable, state fields present, gold values
 * that are options or distributions over exactly them), problems collected with the line and
 * field they are in.
 *
 * @module
 */
import { MAX_DEPTH, type RawRow } from "./_read_rows.ts";
import { cut, quoted, shown } from "./_shown.ts";
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

/**
 * What is wrong with a state value, looked at no deeper than {@linkcode MAX_DEPTH} levels: nested
 * too deep (nothing on a run's path could copy or send it), or holding a number that is not finite
 * (JSON cannot send one; JSONL reads `1e999` as Infinity, Parquet holds NaN).
 */
function stateProblem(value: unknown, depth = 0): string | null {
  if (typeof value === "number") {
    return Number.isFinite(value)
      ? null
      : `holds ${value}, a number that is not finite; JSON cannot send it`;
  }
  if (typeof value !== "object" || value === null) return null;
  if (depth >= MAX_DEPTH) {
    return `is nested more than ${MAX_DEPTH} levels deep; flatten the state`;
  }
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const problem = stateProblem(child, depth + 1);
    if (problem !== null) return problem;
  }
  return null;
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
  const options = optionsOfCached(question);
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
  return { gold: oneHot(question, label, options) };
}

const optionsCache = new WeakMap<Question, readonly string[]>();

/** A (frozen, shared) question's options, listed once. */
function optionsOfCached(question: Question): readonly string[] {
  let options = optionsCache.get(question);
  if (options === undefined) {
    options = optionsOf(question);
    optionsCache.set(question, options);
  }
  return options;
}

const oneHotCache = new WeakMap<Question, Map<string, GoldAnswer>>();

/**
 * The gold answer of a hard label: one frozen object per question and label, shared by every row
 * with that label (a million rows do not make a million equal objects).
 */
function oneHot(question: Question, label: string, options: readonly string[]): GoldAnswer {
  let byLabel = oneHotCache.get(question);
  if (byLabel === undefined) {
    byLabel = new Map();
    oneHotCache.set(question, byLabel);
  }
  let gold = byLabel.get(label);
  if (gold === undefined) {
    const probabilities: Record<string, number> = {};
    for (const option of options) probabilities[option] = option === label ? 1 : 0;
    gold = deepFreeze(goldAnswer(question, label, probabilities));
    byLabel.set(label, gold);
  }
  return gold;
}

function shownText(value: unknown): string {
  return typeof value === "string" ? quoted(value) : shown(value);
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
      problem: `the distribution has ${quoted(stray)}, which is not an option (${
        options.join(", ")
      })`,
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
    if (typeof p === "number" && !Number.isFinite(p)) {
      return {
        problem: `probability of ${
          quoted(key)
        } is not a finite number (it reads as ${p}); give a number in [0, 1]`,
      };
    }
    if (typeof p !== "number" || p < 0 || p > 1) {
      return { problem: `probability of ${quoted(key)} is ${shown(p)}, not a number in [0, 1]` };
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

/** A control character (NUL, a line break, a tab…): ids are one line of printable text. */
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

function readId(value: unknown): { id: string } | { problem: string } {
  if (isEmpty(value)) return { problem: "missing: every row needs an id" };
  if (typeof value === "string") {
    const control = CONTROL.exec(value);
    if (control !== null) {
      const code = (control[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(
        4,
        "0",
      );
      return {
        problem: `${
          shown(value)
        } holds a control character (U+${code}); an id must be one line of printable text`,
      };
    }
    return { id: value };
  }
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

/** How many problems of each kind are kept (the rest are counted). */
export const PROBLEMS_KEPT = 1000;

/** Problems kept up to {@linkcode PROBLEMS_KEPT}, and counted beyond. */
class ProblemLog {
  readonly items: (QuestionSetProblem & { absentField?: string })[] = [];
  total = 0;

  add(problem: QuestionSetProblem & { absentField?: string }): void {
    this.total++;
    if (this.items.length < PROBLEMS_KEPT) this.items.push(problem);
  }
}

/** Options of {@linkcode RowChecker}. */
export interface RowCheckerOptions {
  /** The file name used in problems. */
  file: string;
  /** The file's format (how gold text is read, what a line is called). */
  format: QuestionSetFormat;
  /**
   * The lane of every case when the dataset names no lane field.
   * @default "default"
   */
  lane?: string;
  /**
   * Check that ids are unique. A second read of bytes already checked (the same sha256) skips it
   * and keeps no ids.
   * @default true
   */
  uniqueIds?: boolean;
}

/**
 * Checks a file's rows against the workflow's declaration, one row at a time, and builds each
 * row's case. Every row is checked; nothing stops at the first problem. Fields the declaration
 * names but the file lacks entirely (a CSV or Parquet column, or a JSONL field no row has) are
 * reported once, for the file. Memory: the ids seen (for the repeat check) and at most
 * {@linkcode PROBLEMS_KEPT} problems of each kind.
 */
export class RowChecker {
  /** The questions every case asks, frozen and shared by all cases. */
  readonly questions: Readonly<Record<string, Question>>;
  /** Rows with a gold value, per question. */
  readonly labelled: Record<string, number>;
  /** Rows read (with or without problems). */
  rows = 0;
  readonly #spec: DatasetSpec;
  readonly #definitions: Readonly<Record<string, QuestionDefinition>>;
  readonly #options: RowCheckerOptions;
  readonly #stateFields: readonly string[];
  /** [field, role] of the fields every row must have, then of the gold fields. */
  readonly #named: [string, string][];
  readonly #absent = new Set<string>();
  /** [question name, gold field, question] of each question with a gold field. */
  readonly #golds: [string, string, Question][];
  #columns: string[] | null = null;
  /** JSONL: the named fields some row has, and the first 13 field names in order of appearance. */
  readonly #present = new Set<string>();
  readonly #firstKeys: string[] = [];
  readonly #missing = new Map<string, number>();
  readonly #seen: Map<string, number> | null;
  readonly #format = new ProblemLog();
  readonly #fields = new ProblemLog();
  readonly #rowProblems = new ProblemLog();

  /**
   * Prepares the check.
   *
   * @param spec The workflow's `dataset`.
   * @param definitions The workflow's `questions`.
   * @param options File name, format, default lane, id check.
   */
  constructor(
    spec: DatasetSpec,
    definitions: Readonly<Record<string, QuestionDefinition>>,
    options: RowCheckerOptions,
  ) {
    this.#spec = spec;
    this.#definitions = definitions;
    this.#options = options;
    this.#stateFields = typeof spec.state === "string" ? [spec.state] : spec.state;
    const questions: Record<string, Question> = {};
    for (const [name, definition] of Object.entries(definitions)) {
      questions[name] = deepFreeze(wireQuestion(definition));
    }
    this.questions = Object.freeze(questions);
    this.labelled = Object.fromEntries(Object.keys(definitions).map((name) => [name, 0]));
    this.#golds = Object.entries(definitions).flatMap(([name, d]) =>
      d.gold === undefined ? [] : [[name, d.gold, questions[name] as Question]]
    );
    this.#named = [
      [spec.id, "the id field"],
      ...this.#stateFields.map((f): [string, string] => [f, "a state field"]),
      ...(spec.lane !== undefined ? [[spec.lane, "the lane field"] as [string, string]] : []),
      ...Object.entries(definitions).flatMap(([name, d]) =>
        d.gold === undefined
          ? []
          : [[d.gold, `the gold field of question "${name}"`] as [string, string]]
      ),
    ];
    this.#seen = options.uniqueIds === false ? null : new Map();
  }

  /** The file name used in problems. */
  get file(): string {
    return this.#options.file;
  }

  /** The file's format. */
  get format(): QuestionSetFormat {
    return this.#options.format;
  }

  /** The ids seen, each with its line (empty when ids are not checked). */
  get ids(): ReadonlyMap<string, number> {
    return this.#seen ?? new Map();
  }

  /**
   * Reports a format problem (it comes before the rows' problems).
   *
   * @param line The line, or null for the whole file.
   * @param field The field, or null.
   * @param message What is wrong.
   */
  formatProblem(line: number | null, field: string | null, message: string): void {
    this.#format.add({ file: this.#options.file, line, field, message });
  }

  /**
   * Takes the header of a CSV or Parquet file: the named fields it lacks are reported now.
   *
   * @param columns The header's columns.
   * @param hint Text added to each "no such column" message (a delimiter hint).
   */
  header(columns: string[], hint = ""): void {
    this.#columns = columns;
    const known = new Set(columns);
    for (const [field, role] of this.#named) {
      if (!known.has(field)) this.#absentField(field, role, columns, hint);
    }
  }

  #absentField(field: string, role: string, known: readonly string[], hint = ""): void {
    if (this.#absent.has(field)) return;
    this.#absent.add(field);
    const header = this.#columns !== null;
    const names = known.slice(0, 12).map((name) => cut(name));
    const listed = known.length > 12 ? `${names.join(", ")}, …` : names.join(", ");
    this.#fields.add({
      file: this.#options.file,
      line: header && this.#options.format === "csv" ? 1 : null,
      field: cut(field),
      message: `no such ${header ? "column" : "field in any row"} (${role}); the file has ${
        listed || "none"
      }${hint}`,
    });
  }

  /**
   * Checks one row and builds its case.
   *
   * @param row The row as read.
   * @returns Its case, or null when the row has a problem (reported).
   */
  row(row: RawRow): Case | null {
    this.rows++;
    const { values, line } = row;
    const spec = this.#spec;
    const absent = this.#absent;
    if (this.#columns === null) this.#notePresent(values);
    let ok = true;
    let id = "";
    if (!absent.has(spec.id)) {
      const read = readId(values[spec.id]);
      if ("problem" in read) ok = this.#fail(row, spec.id, read.problem, true);
      else {
        id = read.id;
        const first = this.#seen?.get(id);
        if (first !== undefined) {
          ok = this.#fail(
            row,
            spec.id,
            `${quoted(id)} repeats the id of ${
              this.#options.format === "parquet" ? "row" : "line"
            } ${first}; ids must be unique`,
          );
        } else this.#seen?.set(detached(id), line);
      }
    } else ok = false;
    let lane = this.#options.lane ?? "default";
    if (spec.lane !== undefined) {
      if (absent.has(spec.lane)) ok = false;
      else {
        const read = readLane(values[spec.lane]);
        if ("problem" in read) ok = this.#fail(row, spec.lane, read.problem, true);
        else lane = read.lane;
      }
    }
    let state: unknown;
    const parts: Record<string, unknown> | null = typeof spec.state === "string" ? null : {};
    for (const field of this.#stateFields) {
      if (absent.has(field)) {
        ok = false;
        continue;
      }
      if (!Object.hasOwn(values, field)) {
        ok = this.#fail(row, field, "missing: every row needs each state field", true);
        continue;
      }
      const value = values[field];
      const problem = stateProblem(value);
      if (problem !== null) ok = this.#fail(row, field, problem);
      if (parts === null) state = value;
      else parts[field] = value;
    }
    const gold: Record<string, GoldAnswer> = {};
    for (const [name, field, question] of this.#golds) {
      if (absent.has(field)) continue;
      const read = readGold(values[field], question, this.#options.format);
      if (read === null) continue;
      if ("problem" in read) ok = this.#fail(row, field, read.problem);
      else gold[name] = read.gold;
    }
    if (!ok) return null;
    for (const name in gold) this.labelled[name] = (this.labelled[name] ?? 0) + 1;
    return { id, workflow: lane, state: parts ?? state, questions: this.questions, gold };
  }

  /**
   * Reports a row's problem; returns false (the row is not a case). `missing`: the field is not
   * in the row, which a JSONL file reports once for the file when no row has it.
   */
  #fail(row: RawRow, field: string, message: string, missing = false): false {
    const absentField = missing && this.#columns === null && !Object.hasOwn(row.values, field)
      ? field
      : undefined;
    this.#rowProblems.add({
      file: this.#options.file,
      line: row.line,
      field: cut(field),
      message,
      ...(absentField !== undefined ? { absentField } : {}),
    });
    if (absentField !== undefined) {
      this.#missing.set(absentField, (this.#missing.get(absentField) ?? 0) + 1);
    }
    return false;
  }

  #notePresent(values: Record<string, unknown>): void {
    if (this.#firstKeys.length <= 12) {
      for (const key in values) {
        if (!this.#firstKeys.includes(key)) this.#firstKeys.push(key);
        if (this.#firstKeys.length > 12) break;
      }
    }
    if (this.#present.size < this.#named.length) {
      for (const [field] of this.#named) {
        if (Object.hasOwn(values, field)) this.#present.add(field);
      }
    }
  }

  /**
   * Ends the check: the fields no JSONL row has are reported once (and the rows' "missing"
   * problems for them dropped), and a file without rows is refused.
   */
  finish(): void {
    if (this.#columns === null && this.rows > 0) {
      for (const [field, role] of this.#named) {
        if (this.#present.has(field)) continue;
        this.#absentField(field, role, this.#firstKeys);
        this.#rowProblems.total -= this.#missing.get(field) ?? 0;
      }
      const kept = this.#rowProblems.items.filter((p) =>
        p.absentField === undefined || !this.#absent.has(p.absentField)
      );
      this.#rowProblems.items.splice(0, Infinity, ...kept);
    }
    if (this.rows === 0 && this.problemCount === 0) {
      this.#fields.add({
        file: this.#options.file,
        line: null,
        field: null,
        message: "has no rows; a question set needs at least one case",
      });
    }
  }

  /** How many problems were found. */
  get problemCount(): number {
    return this.#format.total + this.#fields.total + this.#rowProblems.total;
  }

  /**
   * The problems kept, in order: format problems, missing fields, then the rows'.
   *
   * @returns At most 3 × {@linkcode PROBLEMS_KEPT} problems.
   */
  problems(): QuestionSetProblem[] {
    return [this.#format, this.#fields, this.#rowProblems].flatMap((log) =>
      log.items.map(({ absentField: _, ...problem }) => problem)
    );
  }
}

/**
 * A string that shares no memory with the text it was cut from (a CSV id is a slice of the chunk
 * it was read in; kept in the id map, it would keep the whole chunk alive).
 */
function detached(text: string): string {
  return text.length < 13 ? text : (" " + text).slice(1);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
