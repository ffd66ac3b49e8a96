/**
 * Structural checks of Typed Decisions rows, shared by the loader (on every load) and the vendor
 * script (before writing).
 *
 * @module
 */
import { COLUMNS, QUESTIONS_PER_CASE, WORKFLOWS } from "./constants.ts";
import { optionsOf } from "./questions.ts";
import { type GoldAnswer, GoldAnswerSchema, type Question, QuestionSchema } from "./schemas.ts";

/** What the rows of a split must look like. */
export interface CaseExpectation {
  /** Cases per workflow. */
  perWorkflow: number;
}

const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "invalid";
  const path = issue.path.map(String).join(".");
  return path ? `field '${path}': ${issue.message}` : issue.message;
}

function sameKeys(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((key) => set.has(key));
}

// Questions repeat across a workflow's cases: each distinct one is validated once per load.
type QuestionCache = Map<string, string | undefined>;

function cachedQuestionProblem(
  name: string,
  value: unknown,
  cache: QuestionCache,
): string | undefined {
  const key = `${name}\u0000${JSON.stringify(value)}`;
  if (cache.has(key)) return cache.get(key);
  const problem = questionProblem(name, value);
  cache.set(key, problem);
  return problem;
}

function questionProblem(name: string, value: unknown): string | undefined {
  const parsed = QuestionSchema.safeParse(value);
  if (!parsed.success) return `question '${name}' is malformed: ${firstIssue(parsed.error)}`;
  const question = parsed.data;
  if (question.type === "choice" && !Array.isArray(question.criteria)) {
    // JSON.parse moves integer-like keys first, which would change the option order sent.
    const bad = Object.keys(question.criteria).find((key) => INTEGER_LIKE.test(key));
    if (bad !== undefined) {
      return `question '${name}' is malformed: option name '${bad}' is integer-like, so its order cannot be kept`;
    }
  }
  return undefined;
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

// The same rule as GoldAnswerSchema, written out because it runs 2,000 times per load (zod takes
// ~10x longer); when it fails, zod is asked for the message.
function isGold(value: unknown): value is GoldAnswer {
  if (!isObject(value)) return false;
  const { type, label, probabilities, confidence, noul, score } = value;
  if (type !== "choice" && type !== "score" && type !== "noul") return false;
  if (typeof label !== "string" || !isNumber(confidence) || !isObject(probabilities)) return false;
  if (noul !== undefined && !isNumber(noul)) return false;
  if (score !== undefined && !isNumber(score)) return false;
  for (const p of Object.values(probabilities)) {
    if (!isNumber(p) || p < 0 || p > 1) return false;
  }
  return true;
}

function goldProblem(name: string, question: Question, value: unknown): string | undefined {
  if (!isGold(value)) {
    const parsed = GoldAnswerSchema.safeParse(value);
    return `gold of '${name}' is malformed: ${
      parsed.success ? "invalid" : firstIssue(parsed.error)
    }`;
  }
  const gold = value;
  if (gold.type !== question.type) {
    return `gold of '${name}' has type '${gold.type}' but the question is '${question.type}'`;
  }
  const options = optionsOf(question);
  const keys = Object.keys(gold.probabilities);
  if (!sameKeys(options, keys)) {
    return `gold of '${name}' has probabilities for '${keys.join(", ")}' but the options are '${
      options.join(", ")
    }'`;
  }
  if (!options.includes(gold.label)) {
    return `gold of '${name}' has label '${gold.label}', which is not an option`;
  }
  return undefined;
}

function rowProblem(row: unknown, cache: QuestionCache): string | undefined {
  if (!isObject(row)) return "is not a JSON object";
  const keys = Object.keys(row);
  if (keys.length !== COLUMNS.length || COLUMNS.some((column, i) => keys[i] !== column)) {
    return `has columns '${keys.join(", ")}', expected '${COLUMNS.join(", ")}'`;
  }
  if (typeof row.id !== "string" || row.id === "") return "has no string 'id'";
  if (typeof row.workflow !== "string" || !WORKFLOWS.includes(row.workflow)) {
    return `has unknown workflow '${String(row.workflow)}'`;
  }
  const { questions, gold } = row;
  if (!isObject(questions)) return "has no 'questions' object";
  if (!isObject(gold)) return "has no 'gold' object";
  const names = Object.keys(questions);
  if (names.length !== QUESTIONS_PER_CASE) {
    return `has ${names.length} questions, expected ${QUESTIONS_PER_CASE}`;
  }
  for (const name of names) {
    const problem = cachedQuestionProblem(name, questions[name], cache);
    if (problem) return problem;
    if (!(name in gold)) return `has no gold for question '${name}'`;
    const goldProblemText = goldProblem(name, questions[name] as Question, gold[name]);
    if (goldProblemText) return goldProblemText;
  }
  const extra = Object.keys(gold).find((name) => !(name in questions));
  if (extra !== undefined) return `has gold for '${extra}', which is not one of its questions`;
  return undefined;
}

/**
 * Finds the first structural problem in a split's rows: columns, ids (unique), workflows (known,
 * each with the expected number of cases), five questions per case that pass `QuestionSchema`,
 * and a gold answer per question whose probabilities are keyed by exactly the question's options.
 *
 * @param rows The rows, as `JSON.parse` gives them.
 * @param expect What the split must hold.
 * @returns A description of the first problem (naming the line and case), or undefined.
 */
export function findCaseProblem(
  rows: readonly unknown[],
  expect: CaseExpectation,
): string | undefined {
  const ids = new Map<string, number>();
  const perWorkflow = new Map<string, number>(WORKFLOWS.map((w) => [w, 0]));
  const cache: QuestionCache = new Map();
  for (const [i, row] of rows.entries()) {
    const problem = rowProblem(row, cache);
    const where = isObject(row) && typeof row.id === "string"
      ? `line ${i + 1} (case '${row.id}')`
      : `line ${i + 1}`;
    if (problem) return `${where} ${problem}`;
    const { id, workflow } = row as { id: string; workflow: string };
    const seen = ids.get(id);
    if (seen !== undefined) return `${where} repeats the id of line ${seen}`;
    ids.set(id, i + 1);
    perWorkflow.set(workflow, (perWorkflow.get(workflow) ?? 0) + 1);
  }
  for (const [workflow, count] of perWorkflow) {
    if (count !== expect.perWorkflow) {
      return `workflow '${workflow}' has ${count} cases, expected ${expect.perWorkflow}`;
    }
  }
  return undefined;
}
