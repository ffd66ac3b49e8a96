/**
 * The decision explorer's queries: filters read from the query string (workflow or lane,
 * question, type, outcome, confidence range, error kind, free text in the state), turned into one
 * parameterised SQL `WHERE` over the `decisions` table, and a page of matching decisions with the
 * total count. Nothing is read beyond the page asked for, so a 20,000-decision run pages as fast
 * as a 2,000-decision one.
 *
 * @module
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { decisionFromRow, type DecisionRecord } from "../record/mod.ts";

/** Outcomes a decision can have, written once (the filter's choices). */
export const OUTCOMES = ["correct", "wrong", "unlabelled", "error"] as const;
/**
 * `correct`: answered and right; `wrong`: answered and wrong; `unlabelled`: answered, no gold
 * label to judge it by (neither right nor wrong); `error`: not answered.
 */
export type Outcome = (typeof OUTCOMES)[number];

/** Orders a page can come in. */
export const ORDERS = ["dataset", "confidence"] as const;
/** `dataset`: as recorded; `confidence`: most confident first. */
export type Order = (typeof ORDERS)[number];

/** The confidence at or above which a wrong answer is a "confident mistake". */
export const CONFIDENT_MISTAKE = 0.9;

/** What the explorer shows. */
export interface DecisionFilter {
  /** Only this workflow (lane). @default undefined (all) */
  workflow?: string | undefined;
  /** Only this question name. @default undefined (all) */
  question?: string | undefined;
  /** Only this question type. @default undefined (all) */
  type?: string | undefined;
  /** Only this outcome. @default undefined (all) */
  outcome?: Outcome | undefined;
  /** Confidence at least this (answered decisions only). @default undefined */
  minConfidence?: number | undefined;
  /** Confidence at most this (answered decisions only). @default undefined */
  maxConfidence?: number | undefined;
  /** Only this error kind. @default undefined (all) */
  errorKind?: string | undefined;
  /** Text the case's state (or its id) contains, case-insensitive. @default undefined */
  text?: string | undefined;
}

/** Which page. */
export interface PageRequest {
  /** Page number, from 1. */
  page: number;
  /** Decisions per page (1–200). */
  perPage: number;
  /** Order. */
  order: Order;
}

/** A filter and page read from a query string, with whatever could not be read. */
export interface ParsedQuery {
  /** The filter. */
  filter: DecisionFilter;
  /** The page. */
  page: PageRequest;
  /** Problems, e.g. `min_conf "x" is not a number in [0, 1]`; [] when all is well. */
  problems: string[];
}

/** Default decisions per page. */
export const PER_PAGE = 50;
const MAX_PER_PAGE = 200;

function probability(params: URLSearchParams, name: string, problems: string[]) {
  const raw = params.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    problems.push(`${name} "${raw}" is not a number in [0, 1]`);
    return undefined;
  }
  return value;
}

function positive(params: URLSearchParams, name: string, fallback: number, problems: string[]) {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    problems.push(`${name} "${raw}" is not a whole number ≥ 1`);
    return fallback;
  }
  return value;
}

function text(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name)?.trim();
  return value ? value : undefined;
}

/**
 * Reads the explorer's filter and page from a query string: `workflow`, `question`, `type`,
 * `outcome` (correct / wrong / unlabelled / error), `min_conf`, `max_conf`, `error_kind`, `q` (state text),
 * `page`, `per_page`, `order` (dataset / confidence).
 *
 * @param params The query string.
 * @returns The filter, the page and any problems (bad values are left out of the filter).
 * @example
 * ```ts
 * import { parseQuery } from "./explorer.ts";
 * const { filter } = parseQuery(new URLSearchParams("outcome=wrong&min_conf=0.9"));
 * if (filter.outcome !== "wrong" || filter.minConfidence !== 0.9) throw new Error("unexpected");
 * ```
 */
export function parseQuery(params: URLSearchParams): ParsedQuery {
  const problems: string[] = [];
  const outcome = text(params, "outcome");
  if (outcome !== undefined && !(OUTCOMES as readonly string[]).includes(outcome)) {
    problems.push(`outcome "${outcome}" is not one of ${OUTCOMES.join(", ")}`);
  }
  const order = text(params, "order") ?? "dataset";
  if (!(ORDERS as readonly string[]).includes(order)) {
    problems.push(`order "${order}" is not one of ${ORDERS.join(", ")}`);
  }
  const filter: DecisionFilter = {
    workflow: text(params, "workflow"),
    question: text(params, "question"),
    type: text(params, "type"),
    outcome: (OUTCOMES as readonly string[]).includes(outcome ?? "")
      ? outcome as Outcome
      : undefined,
    minConfidence: probability(params, "min_conf", problems),
    maxConfidence: probability(params, "max_conf", problems),
    errorKind: text(params, "error_kind"),
    text: text(params, "q"),
  };
  const perPage = Math.min(positive(params, "per_page", PER_PAGE, problems), MAX_PER_PAGE);
  return {
    filter,
    page: {
      page: positive(params, "page", 1, problems),
      perPage,
      order: (ORDERS as readonly string[]).includes(order) ? order as Order : "dataset",
    },
    problems,
  };
}

/**
 * The filter as a query string (only the fields that are set), for links and forms.
 *
 * @param filter The filter.
 * @returns e.g. `outcome=wrong&min_conf=0.9`.
 */
export function filterQuery(filter: DecisionFilter): URLSearchParams {
  const params = new URLSearchParams();
  const set = (name: string, value: string | number | undefined) => {
    if (value !== undefined) params.set(name, String(value));
  };
  set("workflow", filter.workflow);
  set("question", filter.question);
  set("type", filter.type);
  set("outcome", filter.outcome);
  set("min_conf", filter.minConfidence);
  set("max_conf", filter.maxConfidence);
  set("error_kind", filter.errorKind);
  set("q", filter.text);
  return params;
}

/** A `WHERE` clause and its parameters. */
export interface SqlWhere {
  /** The clause, without `WHERE`. */
  sql: string;
  /** Its parameters, in order. */
  params: SQLInputValue[];
}

/**
 * Builds the `WHERE` clause of a filter over one run's decisions.
 *
 * @param runId The run id.
 * @param filter The filter.
 * @param textCases For a text filter: the ids of the cases whose state contains the text
 *   (null when the states are not at hand: the text then matches case ids only).
 * @param legacyGold Whether the run's rows may hold an unlabelled decision as `gold ''`,
 *   `correct 0`, as an index written before unlabelled decisions were NULL did
 *   ({@linkcode mayHoldLegacyGold}); the outcome filters then check the gold label too.
 * @returns The parameterised clause.
 */
export function whereOf(
  runId: string,
  filter: DecisionFilter,
  textCases: readonly string[] | null = null,
  legacyGold = false,
): SqlWhere {
  const sql = ["run_id = ?"];
  const params: SQLInputValue[] = [runId];
  const equal = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    sql.push(`${column} = ?`);
    params.push(value);
  };
  equal("workflow", filter.workflow);
  equal("question", filter.question);
  equal("type", filter.type);
  equal("error_kind", filter.errorKind);
  // An unlabelled decision's `correct` is NULL, so `correct = 0` is a wrong answer to a gold label
  // and the count reads one index. An index written before that held '' (and correct 0) for it.
  const labelled = legacyGold ? " AND gold IS NOT NULL AND gold <> ''" : "";
  if (filter.outcome === "correct") sql.push(`correct = 1 AND error_kind IS NULL${labelled}`);
  if (filter.outcome === "wrong") sql.push(`correct = 0 AND error_kind IS NULL${labelled}`);
  if (filter.outcome === "unlabelled") {
    sql.push("(gold IS NULL OR gold = '') AND error_kind IS NULL");
  }
  if (filter.outcome === "error") sql.push("error_kind IS NOT NULL");
  if (filter.minConfidence !== undefined) {
    sql.push("confidence >= ?");
    params.push(filter.minConfidence);
  }
  if (filter.maxConfidence !== undefined) {
    sql.push("confidence <= ?");
    params.push(filter.maxConfidence);
  }
  if (filter.text !== undefined) {
    sql.push(
      "(instr(lower(case_id), ?) > 0 OR case_id IN (SELECT value FROM json_each(?)))",
    );
    params.push(filter.text.toLowerCase(), JSON.stringify(textCases ?? []));
  }
  return { sql: sql.join(" AND "), params };
}

/**
 * Whether a run's rows in an index may hold unlabelled decisions the old way (`gold ''`,
 * `correct 0`): a run indexed before the index counted labelled decisions has no `labelled` count.
 *
 * @param db The index (or the view's in-memory copy of a run directory).
 * @param runId The run id.
 * @returns True for a run indexed by an older decibench.
 */
export function mayHoldLegacyGold(db: DatabaseSync, runId: string): boolean {
  try {
    const row = db.prepare("SELECT labelled IS NULL AS legacy FROM runs WHERE id = ?").get(runId) as
      | { legacy: number }
      | undefined;
    return row?.legacy === 1;
  } catch {
    return true; // no runs table or no labelled column: an older file
  }
}

/** A page of decisions. */
export interface DecisionPage {
  /** Decisions matching the filter. */
  total: number;
  /** The page number shown (clamped to the last page). */
  page: number;
  /** Decisions per page. */
  perPage: number;
  /** Number of pages (at least 1). */
  pages: number;
  /** The page's decisions. */
  decisions: DecisionRecord[];
}

/**
 * One page of a run's decisions matching a filter, with the total count.
 *
 * @param db The database holding the run's `decisions` rows.
 * @param where The filter's clause (from {@linkcode whereOf}).
 * @param page Page, size and order.
 * @returns The page.
 */
export function queryDecisions(
  db: DatabaseSync,
  where: SqlWhere,
  page: PageRequest,
): DecisionPage {
  const total = countDecisions(db, where);
  const pages = Math.max(1, Math.ceil(total / page.perPage));
  const current = Math.min(page.page, pages);
  const ids = (db.prepare(`${pageQuery(where, page.order)} LIMIT ? OFFSET ?`).all(
    ...where.params,
    page.perPage,
    (current - 1) * page.perPage,
  ) as { id: number }[])
    .map((r) => Number(r.id));
  const rows = db.prepare(
    "SELECT rowid AS id, * FROM decisions WHERE rowid IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as Record<string, SQLInputValue>[];
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return {
    total,
    page: current,
    perPage: page.perPage,
    pages,
    decisions: ids.map((id) => decisionFromRow(byId.get(id) as Record<string, SQLInputValue>)),
  };
}

/**
 * The query of a page's row ids in an order, without its `LIMIT`: each order is read off an index
 * (the ones by run, by run and question, by run and confidence), never sorted. The outcome and
 * confidence terms are kept off the counting indexes (a unary `+`): those would find the rows
 * faster, then sort them all.
 *
 * @param where The filter's clause.
 * @param order The order.
 * @returns The SQL (its parameters are `where.params`).
 */
export function pageQuery(where: SqlWhere, order: Order): string {
  if (order === "confidence" && /\bconfidence [<>]= \?/.test(where.sql)) {
    // A confidence range holds no null confidence: the order is the counting index's own, its
    // range read from the most confident down (ties in record order).
    return `SELECT rowid AS id FROM decisions WHERE ${where.sql} ORDER BY confidence DESC, rowid`;
  }
  if (order === "confidence") {
    const sql = where.sql.replace(/\b(error_kind|confidence) /g, "+$1 ");
    return `SELECT rowid AS id FROM decisions WHERE ${sql} ORDER BY confidence IS NULL, confidence DESC, rowid`;
  }
  const sql = where.sql.replace(/\b(correct|error_kind|confidence) /g, "+$1 ");
  return `SELECT rowid AS id FROM decisions WHERE ${sql} ORDER BY rowid`;
}

/**
 * How many of a run's decisions match a filter.
 *
 * @param db The database holding the run's `decisions` rows.
 * @param where The filter's clause.
 * @returns The count.
 */
export function countDecisions(db: DatabaseSync, where: SqlWhere): number {
  // A finished run's decisions, unfiltered: the count its row in `runs` holds (counting them
  // would read the whole run's index).
  if (where.sql === "run_id = ?") {
    const known = finishedCount(db, where.params[0]);
    if (known !== null) return known;
  }
  const row = db.prepare(`SELECT COUNT(*) AS n FROM decisions WHERE ${where.sql}`)
    .get(...where.params) as { n: number };
  return Number(row.n);
}

/** The decision count of a finished run's row in `runs`, or null (running, or no such table). */
function finishedCount(db: DatabaseSync, runId: SQLInputValue | undefined): number | null {
  try {
    const row = db.prepare("SELECT decisions FROM runs WHERE id = ? AND status != 'running'")
      .get(runId ?? null) as { decisions: number } | undefined;
    return row === undefined ? null : Number(row.decisions);
  } catch {
    return null; // a database without a runs table
  }
}

/**
 * One decision by case and question.
 *
 * @param db The database holding the run's `decisions` rows.
 * @param runId The run id.
 * @param caseId The case id.
 * @param question The question name.
 * @returns The decision, or null when the run has none for that case and question.
 */
export function findDecision(
  db: DatabaseSync,
  runId: string,
  caseId: string,
  question: string,
): DecisionRecord | null {
  const row = db.prepare(
    "SELECT * FROM decisions WHERE run_id = ? AND case_id = ? AND question = ? ORDER BY rowid LIMIT 1",
  ).get(runId, caseId, question) as Record<string, SQLInputValue> | undefined;
  return row ? decisionFromRow(row) : null;
}

/** What a run's decisions can be filtered by, with counts. */
export interface Facets {
  /** Workflows in record order. */
  workflows: { name: string; n: number }[];
  /** Questions (with their workflow and type) in record order. */
  questions: { workflow: string; name: string; type: string; n: number }[];
  /** Question types. */
  types: { name: string; n: number }[];
  /** Error kinds, most frequent first. */
  errorKinds: { name: string; n: number }[];
}

/**
 * The values a run's decisions take, for the filter's choices.
 *
 * @param db The database holding the run's decisions.
 * @param runId The run id.
 * @returns Workflows, questions, types and error kinds with their counts.
 */
export function facets(db: DatabaseSync, runId: string): Facets {
  const all = <T>(sql: string) => db.prepare(sql).all(runId) as T[];
  const questions = all<{ workflow: string; question: string; type: string; n: number }>(
    `SELECT workflow, question, type, COUNT(*) AS n FROM decisions WHERE run_id = ?
     GROUP BY workflow, question, type ORDER BY MIN(rowid)`,
  );
  const byName = (key: "workflow" | "type") => {
    const counts = new Map<string, number>();
    for (const q of questions) counts.set(q[key], (counts.get(q[key]) ?? 0) + Number(q.n));
    return [...counts].map(([name, n]) => ({ name, n }));
  };
  return {
    workflows: byName("workflow"),
    questions: questions.map((q) => ({
      workflow: q.workflow,
      name: q.question,
      type: q.type,
      n: Number(q.n),
    })),
    types: byName("type"),
    errorKinds: all<{ kind: string; n: number }>(
      `SELECT error_kind AS kind, COUNT(*) AS n FROM decisions
       WHERE run_id = ? AND error_kind IS NOT NULL GROUP BY error_kind ORDER BY n DESC, kind`,
    ).map((e) => ({ name: e.kind, n: Number(e.n) })),
  };
}

/** Failed decisions of one kind, with a few examples. */
export interface ErrorGroup {
  /** Error kind. */
  kind: string;
  /** Decisions that failed with it. */
  count: number;
  /** The first few, in record order. */
  examples: { case: string; question: string; message: string }[];
}

/**
 * A run's errors by kind, most frequent first, each with its first examples.
 *
 * @param db The database holding the run's decisions.
 * @param runId The run id.
 * @param examples Examples per kind.
 * @returns The groups ([] when nothing failed).
 */
export function errorGroups(db: DatabaseSync, runId: string, examples = 3): ErrorGroup[] {
  const kinds = db.prepare(
    `SELECT error_kind AS kind, COUNT(*) AS n FROM decisions
     WHERE run_id = ? AND error_kind IS NOT NULL GROUP BY error_kind ORDER BY n DESC, kind`,
  ).all(runId) as { kind: string; n: number }[];
  const first = db.prepare(
    `SELECT case_id, question, error_message FROM decisions
     WHERE run_id = ? AND error_kind = ? ORDER BY rowid LIMIT ?`,
  );
  return kinds.map((k) => ({
    kind: k.kind,
    count: Number(k.n),
    examples: (first.all(runId, k.kind, examples) as Record<string, SQLInputValue>[]).map((r) => ({
      case: String(r.case_id),
      question: String(r.question),
      message: String(r.error_message ?? ""),
    })),
  }));
}
