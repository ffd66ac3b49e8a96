/**
 * The error a user question set is refused with: every problem found in its file, each naming
 * the file, the line and the field.
 *
 * @module
 */

/** One problem in a question set file. */
export interface QuestionSetProblem {
  /** The file as the user named it (relative to the working directory when it can be). */
  file: string;
  /** The line (CSV: the line the record starts on; JSONL: the line; Parquet: the row, 1 first), or null for the whole file. */
  line: number | null;
  /** The field at fault, or null. */
  field: string | null;
  /** What is wrong and what is allowed, e.g. `"sales" is not an option (billing, shipping)`. */
  message: string;
}

/** How many problems a message lists before it counts the rest. */
export const PROBLEMS_SHOWN = 10;

/**
 * One problem as a line: `tickets.csv:7: field "team": "sales" is not an option (billing, shipping)`.
 *
 * @param problem The problem.
 * @returns The line of text.
 * @example
 * ```ts
 * import { formatProblem } from "./question_set_error.ts";
 * formatProblem({ file: "t.csv", line: 7, field: "team", message: "missing" });
 * // 't.csv:7: field "team": missing'
 * ```
 */
export function formatProblem(problem: QuestionSetProblem): string {
  const where = problem.line === null ? problem.file : `${problem.file}:${problem.line}`;
  const field = problem.field === null ? "" : `field "${problem.field}": `;
  return `${where}: ${field}${problem.message}`;
}

/** Options of {@linkcode QuestionSetError}. */
export interface QuestionSetErrorOptions {
  /**
   * How many problems were found in all.
   * @default the number of problems given
   */
  total?: number | undefined;
}

/**
 * A user question set file cannot be used: it is missing, unreadable, or rows break the
 * workflow's declaration. Thrown before any request is sent; commands exit 2 on it.
 *
 * @example
 * ```ts
 * import { QuestionSetError } from "./question_set_error.ts";
 * const error = new QuestionSetError([{ file: "t.csv", line: 3, field: "id", message: "missing" }]);
 * error.message; // 't.csv:3: field "id": missing'
 * ```
 */
export class QuestionSetError extends Error {
  /** Always `"QuestionSetError"`. */
  override readonly name = "QuestionSetError";
  /** The problems found, in file order, up to a thousand of each kind (the message shows the first {@linkcode PROBLEMS_SHOWN}). */
  readonly problems: readonly QuestionSetProblem[];

  /** How many problems were found (more than `problems` holds when a file has very many). */
  readonly total: number;

  /**
   * Creates the error; its message lists the first problems, one per line.
   *
   * @param problems The problems (at least one).
   * @param options How many there are in all, when only the first are given.
   */
  constructor(problems: readonly QuestionSetProblem[], options: QuestionSetErrorOptions = {}) {
    const total = Math.max(options.total ?? problems.length, problems.length);
    const lines = problems.slice(0, PROBLEMS_SHOWN).map(formatProblem);
    const more = total - PROBLEMS_SHOWN;
    if (more > 0) lines.push(`… and ${more} more ${more === 1 ? "problem" : "problems"}`);
    super(lines.join("\n"));
    this.problems = problems;
    this.total = total;
  }
}
