/**
 * The SQLite index of runs (`node:sqlite`): one row per run and one per decision, so notebooks
 * and scripts can query across runs. The run directories stay the source of truth; indexing a
 * run again (after `--resume`) replaces its rows, so nothing is duplicated.
 *
 * Tables: `runs` (id, fingerprint, workflow, endpoint identity, engine, model, dataset and
 * revision, status, headline metrics, summary and spec as JSON, started/finished, directory),
 * `decisions` (run id plus every `decisions.jsonl` field; distributions as JSON text, booleans as
 * 0/1, the error as `error_kind` and `error_message`, any other field of the record as JSON in
 * `extra`) and `classes` (the summary's per-class results: precision, recall, F1 and support per
 * run, question, lane — NULL for the whole run — and class; made in an older file when it is
 * opened for writing). An index by run covers the columns a decision filter reads (workflow, question,
 * type, correct, error kind, confidence, case), so counting or paging a large run's decisions
 * (`deno task view`) reads the index, not the rows.
 *
 * @example
 * ```ts
 * import { indexRun, listRuns, openIndex, runDecisions } from "./sqlite_index.ts";
 * const index = openIndex(":memory:");
 * // indexRun(index, run, records, { dir }) after a run; then:
 * for (const run of listRuns(index)) console.log(run.id, run.metrics.accuracy, runDecisions(index, run.id).length);
 * index.close();
 * ```
 *
 * @module
 */
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { type ByMetric, METRIC_NAMES } from "../metrics/mod.ts";
import type { DecisionRecord, RunJson } from "./schemas.ts";

/**
 * The index schema version (`PRAGMA user_version`). Version 2 added `decisions.extra`; version 3
 * gives `runs` one column per registered metric (added to an older file when it is opened);
 * version 4 adds the indexes the decision explorer's orders and filters read (a run's decisions
 * in record order, by question, and most confident first overall, by question and by outcome),
 * made in an older file when it is opened for writing; version 5 records an unlabelled decision
 * (no gold) with `gold`, `gold_probabilities` and `correct` NULL, so `avg(correct)` is over
 * labelled decisions (an older file's `decisions` table is rebuilt when it is opened for writing,
 * its `gold ''` rows made NULL), and gives `runs` a `labelled` count.
 */
export const INDEX_SCHEMA_VERSION = 5;

/** The default index path, relative to the working directory. */
export const DEFAULT_INDEX_PATH = "runs/decibench.db";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  workflow TEXT NOT NULL,
  workflow_file TEXT,
  endpoint TEXT NOT NULL,
  endpoint_name TEXT,
  engine TEXT NOT NULL,
  model TEXT NOT NULL,
  model_reported TEXT,
  dataset TEXT NOT NULL,
  revision TEXT NOT NULL,
  split TEXT NOT NULL,
  status TEXT NOT NULL,
  cases INTEGER NOT NULL,
  decisions INTEGER NOT NULL,
  answered INTEGER,
  labelled INTEGER,
  errors INTEGER,
  summary TEXT,
  spec TEXT NOT NULL,
  thresholds TEXT NOT NULL,
  dir TEXT,
  tool_version TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_fingerprint ON runs (fingerprint);
CREATE TABLE IF NOT EXISTS decisions (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  endpoint TEXT NOT NULL DEFAULT '',
  case_id TEXT NOT NULL,
  workflow TEXT NOT NULL,
  question TEXT NOT NULL,
  type TEXT NOT NULL,
  predicted TEXT,
  answer TEXT,
  confidence REAL,
  gold TEXT,
  gold_probabilities TEXT,
  correct INTEGER,
  kl REAL,
  brier REAL,
  latency_ms REAL,
  attempts INTEGER NOT NULL,
  input_tokens INTEGER,
  calibrated INTEGER,
  error_kind TEXT,
  error_message TEXT,
  native TEXT,
  warnings TEXT,
  extra TEXT,
  PRIMARY KEY (run_id, endpoint, case_id, question)
);
CREATE INDEX IF NOT EXISTS decisions_by_run ON decisions
  (run_id, workflow, question, type, correct, error_kind, confidence, case_id);
-- The explorer's pages: each index ends in the row id, so a page in record order or most
-- confident first (ties in record order) is read off the index, never sorted.
CREATE INDEX IF NOT EXISTS decisions_in_order ON decisions (run_id);
CREATE INDEX IF NOT EXISTS decisions_by_question ON decisions (run_id, workflow, question);
CREATE INDEX IF NOT EXISTS decisions_by_confidence ON decisions
  (run_id, (confidence IS NULL), confidence DESC);
CREATE INDEX IF NOT EXISTS decisions_by_question_confidence ON decisions
  (run_id, workflow, question, (confidence IS NULL), confidence DESC);
CREATE INDEX IF NOT EXISTS decisions_by_outcome_confidence ON decisions
  (run_id, correct, (confidence IS NULL), confidence DESC);
-- Per-class results of a run's summary (summary.classes): one row per question, lane and class;
-- lane NULL is the whole run.
CREATE TABLE IF NOT EXISTS classes (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  question TEXT NOT NULL,
  lane TEXT,
  label TEXT NOT NULL,
  precision REAL,
  recall REAL,
  f1 REAL,
  support INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS classes_by_run ON classes (run_id, question);
-- The explorer's counts: an outcome (correct and error kind) and a confidence range, of the run or
-- of one question, are a range of one index, never a scan of the run's rows.
CREATE INDEX IF NOT EXISTS decisions_by_outcome ON decisions
  (run_id, correct, error_kind, confidence DESC);
CREATE INDEX IF NOT EXISTS decisions_by_question_outcome ON decisions
  (run_id, question, correct, error_kind, confidence DESC);
`;

/** An open index. */
export interface RunIndex {
  /** The database file (or `:memory:`). */
  readonly path: string;
  /** The underlying connection, for ad-hoc SQL. */
  readonly db: DatabaseSync;
  /** Closes the connection. */
  close(): void;
}

/** An index file written by a newer decibench: its schema version is above this one's. */
export class IndexSchemaError extends Error {
  /**
   * Creates the error.
   *
   * @param version The file's schema version (its header's user_version).
   * @param path The file, named at the start of the message when given.
   */
  constructor(readonly version: number, path?: string) {
    super(
      `${
        path === undefined ? "" : `Cannot open the run index "${path}": `
      }schema version ${version} is newer than this decibench's ${INDEX_SCHEMA_VERSION}; upgrade decibench or pass another --db`,
    );
    this.name = "IndexSchemaError";
  }
}

/**
 * Checks, without opening it, that a file can serve as the index: absent in a folder that can be
 * written (the folder is made), empty, or a writable SQLite database whose schema version (the
 * header's user_version) this decibench reads. `deno task bench` checks its `--db` this way
 * before its first request; damage deeper in a database is found when the run is indexed.
 *
 * @param path The index file.
 * @throws {IndexSchemaError} When the file holds a newer schema version.
 * @throws {Error} Naming why else the file cannot be the index (not a database, or the operating
 *   system's reason).
 */
export function checkIndexFile(path: string): void {
  const header = new Uint8Array(100);
  let read = 0;
  try {
    using file = Deno.openSync(path, { read: true, write: true }); // writable, not truncated
    while (read < header.length) {
      const n = file.readSync(header.subarray(read));
      if (n === null) break;
      read += n;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    // Created when the run is indexed; its folder now, and a file written there and removed, so
    // an unwritable place is found before the run (an empty file left behind is no index).
    Deno.mkdirSync(dirname(path), { recursive: true });
    const probe = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    Deno.writeFileSync(probe, new Uint8Array(), { createNew: true });
    Deno.removeSync(probe);
    return;
  }
  if (read === 0) return;
  const magic = new TextDecoder().decode(header.subarray(0, 16));
  if (read < header.length || magic !== "SQLite format 3\0") {
    throw new Error("file is not a database");
  }
  const version = new DataView(header.buffer).getUint32(60);
  if (version > INDEX_SCHEMA_VERSION) throw new IndexSchemaError(version);
}

/** Options for `openIndex`. */
export interface OpenIndexOptions {
  /** Open read-only (notebooks); the file must exist. @default false */
  readOnly?: boolean | undefined;
}

/**
 * Opens (creating when needed, with its parent directory) the index database.
 *
 * @param path Database file, or `:memory:`.
 * @param options Read-only.
 * @returns The open index.
 * @throws {IndexSchemaError} When the file holds a newer schema version.
 * @throws {Error} When the file cannot be opened.
 */
export function openIndex(
  path: string = DEFAULT_INDEX_PATH,
  options: OpenIndexOptions = {},
): RunIndex {
  const readOnly = options.readOnly === true;
  // Deno.mkdirSync, not node:fs: loading node:fs adds ~20 ms to every start-up.
  if (path !== ":memory:" && !readOnly) Deno.mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { readOnly });
  try {
    // First: several benches finishing at once open the same file, and each waits its turn.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (readOnly) checkVersion(db, path);
    else {
      if (path !== ":memory:") useWal(db);
      db.exec("PRAGMA foreign_keys = ON");
      // Creating and upgrading the schema is one write transaction, taken before the schema is
      // read: a second process opening a new file waits, then finds the tables and columns made.
      inTransaction(db, () => {
        const version = checkVersion(db, path);
        db.exec(SCHEMA);
        migrate(db);
        if (version !== INDEX_SCHEMA_VERSION) {
          db.exec(`PRAGMA user_version = ${INDEX_SCHEMA_VERSION}`);
        }
      });
    }
  } catch (error) {
    db.close();
    // SQLite's reason, without the statements (`… in \nCREATE TABLE …`) it was running.
    if (error instanceof Error) error.message = error.message.replace(/ in \n[\s\S]*$/, "");
    throw error;
  }
  return { path, db, close: () => db.close() };
}

/** How long a connection waits for another process's write to the index before giving up. */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * Puts the file in WAL mode (kept in the file: done once). Switching needs the file to itself, and
 * SQLite answers "database is locked" at once, without waiting, when another process holds it
 * (waiting could deadlock): the switch is tried again after a short pause, up to the busy timeout.
 */
function useWal(db: DatabaseSync): void {
  const mode = db.prepare("PRAGMA journal_mode").get() as { journal_mode: string } | undefined;
  if (mode?.journal_mode === "wal") return;
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (let attempt = 1;; attempt++) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!/database is locked/.test(String(error)) || performance.now() > deadline) throw error;
      // A pause that grows and varies, so processes waiting for one another do not retry in step.
      const pause = Math.min(100, 2 * attempt) * (0.5 + Math.random());
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
    }
  }
}

/** The file's schema version, refused when newer than this decibench's. */
function checkVersion(db: DatabaseSync, path: string): number {
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number } | undefined;
  const version = row?.user_version ?? 0;
  if (version > INDEX_SCHEMA_VERSION) throw new IndexSchemaError(version, path);
  return version;
}

/**
 * Columns added after version 1, by table, and one `runs` column per registered metric: an older
 * file (or one written before a metric was registered) gets them on open.
 */
const ADDED_COLUMNS: readonly [table: string, column: string, type: string][] = [
  ["decisions", "extra", "TEXT"],
  ["runs", "labelled", "INTEGER"],
  ...METRIC_NAMES.map((name): [string, string, string] => ["runs", name, "REAL"]),
];

/**
 * Rebuilds a `decisions` table made before version 5 (`gold`, `gold_probabilities` and `correct`
 * NOT NULL, an unlabelled decision stored as `gold ''`, `correct 0`): the same rows with those
 * columns NULL for an unlabelled decision; its indexes are made again by the schema.
 */
function allowUnlabelled(db: DatabaseSync): void {
  const columns = db.prepare("PRAGMA table_info(decisions)").all() as {
    name: string;
    notnull: number;
  }[];
  if (!columns.some((c) => c.name === "correct" && c.notnull === 1)) return;
  const create = SCHEMA.slice(SCHEMA.indexOf("CREATE TABLE IF NOT EXISTS decisions"));
  const table = create.slice(0, create.indexOf(";") + 1)
    .replace("CREATE TABLE IF NOT EXISTS decisions", "CREATE TABLE decisions_rebuilt");
  const none = "gold = ''";
  const values = DECISION_COLUMNS.map((c) =>
    c === "gold"
      ? `CASE WHEN ${none} THEN NULL ELSE gold END`
      : c === "gold_probabilities"
      ? `CASE WHEN ${none} OR gold_probabilities = 'null' THEN NULL ELSE gold_probabilities END`
      : c === "correct"
      ? `CASE WHEN ${none} THEN NULL ELSE correct END`
      : c
  );
  db.exec(table);
  db.exec(
    `INSERT INTO decisions_rebuilt (${DECISION_COLUMNS.join(", ")})
     SELECT ${values.join(", ")} FROM decisions ORDER BY rowid`,
  );
  db.exec("DROP TABLE decisions");
  db.exec("ALTER TABLE decisions_rebuilt RENAME TO decisions");
  db.exec(SCHEMA); // the indexes
}

function migrate(db: DatabaseSync): void {
  // An index of decisions by case across runs makes each run's decisions land all over it (its
  // leaf pages grow with the number of runs), so indexing a run takes ever longer. Nothing queries
  // by case without a run id, so a file that has one drops it.
  db.exec("DROP INDEX IF EXISTS decisions_by_case");
  // Each table's columns read once (one query per table, not one per column).
  const present = new Map<string, Set<string>>();
  for (const [table, column, type] of ADDED_COLUMNS) {
    let columns = present.get(table);
    if (columns === undefined) {
      const rows = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      present.set(table, columns = new Set(rows.map((c) => c.name)));
    }
    if (!columns.has(column)) {
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      columns.add(column);
    }
  }
  allowUnlabelled(db);
}

/** Options for `indexRun`. */
export interface IndexRunOptions {
  /** The run directory, recorded with the run. @default null */
  dir?: string | null | undefined;
}

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/**
 * Adds a run and its decisions to the index, replacing whatever the index held for that run id
 * (so indexing a resumed run again leaves one row per decision).
 *
 * @param index The open index.
 * @param run The run record.
 * @param records Every decision of the run.
 * @param options The run directory.
 * @throws {Error} When the database rejects the write (the transaction is rolled back).
 */
export function indexRun(
  index: RunIndex,
  run: RunJson,
  records: readonly DecisionRecord[],
  options: IndexRunOptions = {},
): void {
  inTransaction(index.db, () => {
    putRun(index.db, run, records.length, options);
    putDecisions(index.db, run.id, records);
  });
}

/**
 * Replaces an indexed run's own row (status, summary, metrics, thresholds…) and leaves its
 * decisions as {@linkcode indexRun} wrote them: a run indexes its decisions while it still
 * computes its summary, then its final record.
 *
 * @param index The open index.
 * @param run The run record.
 * @param decisions The number of its decisions.
 * @param options The run directory.
 * @throws {Error} When the database rejects the write (the transaction is rolled back).
 */
export function updateIndexedRun(
  index: RunIndex,
  run: RunJson,
  decisions: number,
  options: IndexRunOptions = {},
): void {
  inTransaction(index.db, () => putRun(index.db, run, decisions, options));
}

/**
 * Starts indexing a run whose decisions come as it goes: writes its row (as its record says, e.g.
 * `running`) and removes any decision the index held for that run id, in one transaction;
 * {@linkcode addIndexedDecisions} then adds its decisions in batches, and
 * {@linkcode updateIndexedRun} writes its final row.
 *
 * @param index The open index.
 * @param run The run record as first written.
 * @param options The run directory.
 * @throws {Error} When the database rejects the write (the transaction is rolled back).
 */
export function beginIndexedRun(
  index: RunIndex,
  run: RunJson,
  options: IndexRunOptions = {},
): void {
  inTransaction(index.db, () => {
    putRun(index.db, run, 0, options);
    index.db.prepare("DELETE FROM decisions WHERE run_id = ?").run(run.id);
  });
}

/**
 * Adds decisions of a run begun with {@linkcode beginIndexedRun}, in one transaction (a decision
 * of a (case, question) the index already holds for the run replaces it).
 *
 * @param index The open index.
 * @param runId The run's id.
 * @param records The decisions to add, in order.
 * @throws {Error} When the database rejects the write (the transaction is rolled back).
 */
export function addIndexedDecisions(
  index: RunIndex,
  runId: string,
  records: readonly DecisionRecord[],
): void {
  inTransaction(index.db, () => insertRows(index.db, runId, records));
}

function inTransaction(db: DatabaseSync, write: () => void): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    write();
    db.exec("COMMIT");
  } catch (error) {
    // SQLite may have rolled back already (a full disk: "database or disk is full"); a failed
    // ROLLBACK must not hide the reason.
    try {
      if (db.isTransaction) db.exec("ROLLBACK");
    } catch {
      // the transaction is gone either way
    }
    throw error;
  }
}

/** Inserts or replaces the run's row. */
function putRun(
  db: DatabaseSync,
  run: RunJson,
  decisions: number,
  options: IndexRunOptions,
): void {
  const spec = run.spec;
  const summary = run.summary;
  const values: [string, SQLInputValue][] = [
    ["id", run.id],
    ["fingerprint", spec.fingerprint],
    ["workflow", spec.workflow],
    ["workflow_file", spec.workflow_file],
    ["endpoint", spec.endpoint],
    ["endpoint_name", spec.endpoint_name],
    ["engine", spec.engine],
    ["model", spec.model],
    ["model_reported", run.model_reported],
    ["dataset", spec.dataset],
    ["revision", spec.revision],
    ["split", spec.split],
    ["status", run.status],
    ["cases", spec.cases],
    ["decisions", decisions],
    ["answered", summary?.answered ?? null],
    ["labelled", summary?.labelled ?? null],
    ["errors", summary?.errors ?? null],
    ...METRIC_NAMES.map((name): [string, SQLInputValue] => [
      name,
      summary?.metrics[name] ?? null,
    ]),
    ["summary", json(summary)],
    ["spec", JSON.stringify(spec)],
    ["thresholds", JSON.stringify(run.thresholds)],
    ["dir", options.dir ?? null],
    ["tool_version", run.tool_version],
    ["started_at", run.started_at],
    ["finished_at", run.finished_at],
  ];
  const columns = values.map(([column]) => column);
  db.prepare(
    `INSERT INTO runs (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
    ON CONFLICT (id) DO UPDATE SET ${
      columns.slice(1).map((c) => `${c} = excluded.${c}`).join(", ")
    }`,
  ).run(...values.map(([, value]) => value));
  putClasses(db, run);
}

/** Replaces the run's `classes` rows with its summary's per-class results (none: no rows). */
function putClasses(db: DatabaseSync, run: RunJson): void {
  db.prepare("DELETE FROM classes WHERE run_id = ?").run(run.id);
  const classes = run.summary?.classes;
  if (classes === undefined) return;
  const insert = db.prepare(
    `INSERT INTO classes (run_id, question, lane, label, precision, recall, f1, support)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const [question, q] of Object.entries(classes)) {
    const groups: [string | null, typeof q.perClass][] = [
      [null, q.perClass],
      ...Object.entries(q.lanes).map((
        [lane, t],
      ): [string, typeof q.perClass] => [lane, t.perClass]),
    ];
    for (const [lane, rows] of groups) {
      for (const r of rows) {
        insert.run(run.id, question, lane, r.label, r.precision, r.recall, r.f1, r.support);
      }
    }
  }
}

/** One row of the index's `classes` table. */
export interface IndexedClassRow {
  /** Question name. */
  question: string;
  /** Lane, or null for the whole run. */
  lane: string | null;
  /** The class. */
  label: string;
  /** Precision, null when the class was never predicted. */
  precision: number | null;
  /** Recall, null when the class has no support. */
  recall: number | null;
  /** F1, null when the class occurs neither as gold nor as a prediction. */
  f1: number | null;
  /** Labelled decisions whose gold is the class. */
  support: number;
}

/**
 * The per-class rows of one indexed run, in the order its summary lists them (each question: the
 * whole run, then each lane). An index opened read-only from a file written before the table
 * existed has none.
 *
 * @param index The open index.
 * @param runId The run id.
 * @returns The rows; [] when the run has none.
 */
export function runClasses(index: RunIndex, runId: string): IndexedClassRow[] {
  const exists = index.db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'classes'",
  ).get();
  if (exists === undefined) return [];
  const rows = index.db.prepare(
    "SELECT question, lane, label, precision, recall, f1, support FROM classes WHERE run_id = ? ORDER BY rowid",
  ).all(runId) as Record<string, SQLInputValue>[];
  const num = (v: SQLInputValue | undefined) => v === null || v === undefined ? null : Number(v);
  return rows.map((r) => ({
    question: String(r.question),
    lane: r.lane === null ? null : String(r.lane),
    label: String(r.label),
    precision: num(r.precision),
    recall: num(r.recall),
    f1: num(r.f1),
    support: Number(r.support),
  }));
}

/** Rows per `INSERT` of {@link putDecisions}: one statement per row costs a quarter more. */
const INSERT_BATCH = 50;

/** A decision row's columns, in the order `putDecisions` gives their values. */
const DECISION_COLUMNS: readonly string[] = [
  "run_id",
  "endpoint",
  "case_id",
  "workflow",
  "question",
  "type",
  "predicted",
  "answer",
  "confidence",
  "gold",
  "gold_probabilities",
  "correct",
  "kl",
  "brier",
  "latency_ms",
  "attempts",
  "input_tokens",
  "calibrated",
  "error_kind",
  "error_message",
  "native",
  "warnings",
  "extra",
];

/** The decisions table's key: a row given again updates the other columns. */
const DECISION_KEY: readonly string[] = ["run_id", "endpoint", "case_id", "question"];

/** The `INSERT` of `rows` decision rows, in order (a key given twice updates the first row). */
function insertDecisions(db: DatabaseSync, rows: number): StatementSync {
  const row = `(${DECISION_COLUMNS.map(() => "?").join(", ")})`;
  const updated = DECISION_COLUMNS.filter((c) => !DECISION_KEY.includes(c));
  return db.prepare(
    `INSERT INTO decisions (${DECISION_COLUMNS.join(", ")})
    VALUES ${new Array(rows).fill(row).join(", ")}
    ON CONFLICT (${DECISION_KEY.join(", ")}) DO UPDATE SET ${
      updated.map((c) => `${c} = excluded.${c}`).join(", ")
    }`,
  );
}

/** Replaces the run's decision rows with `records`, inserted in their order (the rowid order). */
function putDecisions(db: DatabaseSync, runId: string, records: readonly DecisionRecord[]): void {
  db.prepare("DELETE FROM decisions WHERE run_id = ?").run(runId);
  insertRows(db, runId, records);
}

/** Inserts `records` as the run's decision rows, in their order (the rowid order). */
function insertRows(db: DatabaseSync, runId: string, records: readonly DecisionRecord[]): void {
  // Rows before `whole` go in whole batches, the rest one at a time: same rows in the same order.
  const whole = records.length - records.length % INSERT_BATCH;
  const batch = whole > 0 ? insertDecisions(db, INSERT_BATCH) : null;
  const single = insertDecisions(db, 1);
  const values: SQLInputValue[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as DecisionRecord;
    values.push(
      runId,
      r.endpoint ?? "",
      r.case,
      r.workflow,
      r.question,
      r.type,
      json(r.predicted),
      r.answer,
      r.confidence,
      r.gold,
      json(r.gold_probabilities),
      r.gold === null || r.correct === null ? null : r.correct ? 1 : 0, // NULL: unlabelled
      r.kl ?? null,
      r.brier ?? null,
      r.latency_ms,
      r.attempts,
      r.input_tokens,
      r.calibrated === null ? null : r.calibrated ? 1 : 0,
      r.error?.kind ?? null,
      r.error?.message ?? null,
      json(r.native),
      json(r.warnings),
      extraFields(r),
    );
    const rest = i >= whole;
    if (rest || values.length === INSERT_BATCH * DECISION_COLUMNS.length) {
      (rest ? single : batch as StatementSync).run(...values);
      values.length = 0;
    }
  }
}

/** Record fields that have their own column. */
const COLUMN_FIELDS: ReadonlySet<string> = new Set([
  "case",
  "workflow",
  "question",
  "type",
  "predicted",
  "answer",
  "confidence",
  "gold",
  "gold_probabilities",
  "correct",
  "kl",
  "brier",
  "latency_ms",
  "attempts",
  "input_tokens",
  "calibrated",
  "error",
  "native",
  "warnings",
  "endpoint",
]);

function extraFields(r: DecisionRecord): string | null {
  // A loop, not Object.entries: most records have no such field, and this runs once per row.
  let extra: Record<string, unknown> | null = null;
  for (const k in r) {
    const v = (r as unknown as Record<string, unknown>)[k];
    if (COLUMN_FIELDS.has(k) || v === undefined) continue;
    (extra ??= {})[k] = v;
  }
  return extra === null ? null : JSON.stringify(extra);
}

/** A run as the index lists it. */
export interface IndexedRun {
  /** Run id. */
  id: string;
  /** Comparison fingerprint. */
  fingerprint: string;
  /** Workflow name. */
  workflow: string;
  /** Endpoint identity (no credentials). */
  endpoint: string;
  /** Engine name. */
  engine: string;
  /** Model sent. */
  model: string;
  /** Model the server said answered, or null. */
  modelReported: string | null;
  /** Dataset id. */
  dataset: string;
  /** Dataset revision. */
  revision: string;
  /** Run status. */
  status: RunJson["status"];
  /** Cases selected. */
  cases: number;
  /** Decisions recorded. */
  decisions: number;
  /** Every registered metric's value keyed by name (null when n/a or not yet summarized). */
  metrics: ByMetric<number | null>;
  /** The full summary, or null for a run that has none yet. */
  summary: RunJson["summary"];
  /** Run directory, when recorded. */
  dir: string | null;
  /** Start time (ISO 8601). */
  startedAt: string;
  /** End time (ISO 8601), or null. */
  finishedAt: string | null;
}

/** Options for `listRuns`. */
export interface ListRunsOptions {
  /** Only runs with this fingerprint. @default undefined (all) */
  fingerprint?: string | undefined;
  /** Only runs of this workflow. @default undefined (all) */
  workflow?: string | undefined;
  /** Only runs with this status. @default undefined (all) */
  status?: RunJson["status"] | undefined;
}

/**
 * Lists indexed runs, newest first.
 *
 * @param index The open index.
 * @param options Filters.
 * @returns The runs.
 */
export function listRuns(index: RunIndex, options: ListRunsOptions = {}): IndexedRun[] {
  const where: string[] = [];
  const params: string[] = [];
  for (const key of ["fingerprint", "workflow", "status"] as const) {
    const value = options[key];
    if (value !== undefined) {
      where.push(`${key} = ?`);
      params.push(value);
    }
  }
  const rows = index.db.prepare(
    `SELECT * FROM runs ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY started_at DESC, id DESC`,
  ).all(...params) as Record<string, SQLInputValue>[];
  return rows.map((r) => ({
    id: String(r.id),
    fingerprint: String(r.fingerprint),
    workflow: String(r.workflow),
    endpoint: String(r.endpoint),
    engine: String(r.engine),
    model: String(r.model),
    modelReported: r.model_reported === null ? null : String(r.model_reported),
    dataset: String(r.dataset),
    revision: String(r.revision),
    status: String(r.status) as RunJson["status"],
    cases: Number(r.cases),
    decisions: Number(r.decisions),
    metrics: Object.fromEntries(
      METRIC_NAMES.map((name) => [name, r[name] == null ? null : Number(r[name])]),
    ) as ByMetric<number | null>,
    summary: r.summary === null ? null : JSON.parse(String(r.summary)),
    dir: r.dir === null ? null : String(r.dir),
    startedAt: String(r.started_at),
    finishedAt: r.finished_at === null ? null : String(r.finished_at),
  }));
}

/**
 * The decisions of one indexed run, as `DecisionRecord`s (ready for `summarize`,
 * `pairedComparison` and the report functions), in case and question order as recorded.
 *
 * @param index The open index.
 * @param runId The run id.
 * @returns The decisions; [] when the run is not indexed.
 */
export function runDecisions(index: RunIndex, runId: string): DecisionRecord[] {
  const rows = index.db.prepare(
    "SELECT * FROM decisions WHERE run_id = ? ORDER BY rowid",
  ).all(runId) as Record<string, SQLInputValue>[];
  return rows.map(decisionFromRow);
}

/**
 * Turns one row of the `decisions` table (`SELECT *`) back into its `DecisionRecord`, for
 * queries of your own (a page of a run's decisions, a filter).
 *
 * @param r The row.
 * @returns The decision, as `decisions.jsonl` holds it.
 */
export function decisionFromRow(r: Record<string, SQLInputValue>): DecisionRecord {
  // A file opened read-only before it was rebuilt for version 5 holds '' for no gold.
  const unlabelled = r.gold === null || r.gold === "";
  const record: DecisionRecord = {
    case: String(r.case_id),
    workflow: String(r.workflow),
    question: String(r.question),
    type: String(r.type) as DecisionRecord["type"],
    predicted: r.predicted === null ? null : JSON.parse(String(r.predicted)),
    answer: r.answer === null ? null : String(r.answer),
    confidence: r.confidence === null ? null : Number(r.confidence),
    gold: unlabelled ? null : String(r.gold),
    gold_probabilities: unlabelled || r.gold_probabilities === null
      ? null
      : JSON.parse(String(r.gold_probabilities)),
    correct: unlabelled || r.correct === null ? null : Number(r.correct) === 1,
    ...(unlabelled ? {} : {
      kl: r.kl === null ? null : Number(r.kl),
      brier: r.brier === null ? null : Number(r.brier),
    }),
    latency_ms: r.latency_ms === null ? null : Number(r.latency_ms),
    attempts: Number(r.attempts),
    input_tokens: r.input_tokens === null ? null : Number(r.input_tokens),
    calibrated: r.calibrated === null ? null : Number(r.calibrated) === 1,
    error: r.error_kind === null ? null : {
      kind: String(r.error_kind) as NonNullable<DecisionRecord["error"]>["kind"],
      message: String(r.error_message ?? ""),
    },
  };
  if (r.native !== null) record.native = JSON.parse(String(r.native));
  if (r.warnings !== null) record.warnings = JSON.parse(String(r.warnings));
  if (r.endpoint !== "") record.endpoint = String(r.endpoint);
  if (r.extra !== null) Object.assign(record, JSON.parse(String(r.extra)));
  return record;
}
