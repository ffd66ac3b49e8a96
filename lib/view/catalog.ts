/**
 * The runs the view shows: every run of the SQLite index (opened read-only) and every run
 * directory under the runs folder (`<runs>/<run>/run.json`, and one level deeper for engine
 * comparisons), merged by run id. A run directory's `run.json` is the source of truth; its
 * decisions come from the index when the index holds the same finished run, else from its
 * `decisions.jsonl` (loaded into an in-memory SQLite database, so every run is queried the same
 * way). The catalog only reads: the index read-only, run directories it found by listing the
 * runs folder (symbolic links are not followed), never a path taken from a request.
 *
 * @module
 */
import { join } from "node:path";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import {
  addIndexedDecisions,
  beginIndexedRun,
  decisionFromRow,
  type DecisionRecord,
  DEFAULT_INDEX_PATH,
  openIndex,
  openRun,
  RUN_JSON_VERSION,
  type RunIndex,
  type RunJson,
  updateIndexedRun,
  upgradeRunJson,
} from "../record/mod.ts";
import { TOOL_NAME } from "../version.ts";

/** Options for {@linkcode RunCatalog}. */
export interface RunCatalogOptions {
  /**
   * The SQLite index; `""` for none.
   * @default "runs/decibench.db"
   */
  dbPath?: string | undefined;
  /**
   * The folder holding run directories; `""` for none.
   * @default "runs"
   */
  runsDir?: string | undefined;
}

/** One run as the view knows it. */
export interface CatalogRun {
  /** Run id. */
  id: string;
  /** `run.json` (from the run directory, else rebuilt from the index row). */
  run: RunJson;
  /** The run directory under the runs folder, or null when the run is only in the index. */
  dir: string | null;
  /** Whether the index holds the run. */
  indexed: boolean;
  /** Where its decisions are read: the index, or the run directory's `decisions.jsonl`. */
  source: "index" | "file";
  /** Changes whenever the run's record or decisions change (a cache key). */
  version: string;
}

/** How far a run has got. */
export interface RunProgress {
  /** Run id. */
  id: string;
  /** Run status. */
  status: RunJson["status"];
  /** Cases with a recorded outcome. */
  casesDone: number;
  /** Cases selected. */
  cases: number;
  /** Decisions recorded. */
  decisions: number;
}

interface FileStamp {
  mtime: number;
  size: number;
}

interface DirRun {
  dir: string;
  run: RunJson;
  stamp: string;
}

interface MemoryDb {
  key: string;
  index: RunIndex;
}

/** Decisions indexed at once when a run directory is read into an in-memory database. */
const INDEX_BATCH = 1000;

const MEMORY_DBS = 4;

async function stampOf(path: string): Promise<FileStamp | null> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isFile) return null;
    return { mtime: info.mtime?.getTime() ?? 0, size: info.size };
  } catch {
    return null;
  }
}

function looksLikeRun(value: unknown): value is RunJson {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && typeof v.status === "string" &&
    typeof v.started_at === "string" && typeof v.spec === "object" && v.spec !== null &&
    Array.isArray(v.thresholds);
}

/** The runs of an index and a runs folder. */
export class RunCatalog {
  /** The SQLite index (`""`: none). */
  readonly dbPath: string;
  /** The runs folder (`""`: none). */
  readonly runsDir: string;
  #index: RunIndex | null = null;
  #runJson = new Map<string, { stamp: string; run: RunJson | null }>();
  #memory: MemoryDb[] = [];

  /**
   * A catalog over an index and a runs folder; nothing is read until it is asked.
   *
   * @param options The index path and the runs folder.
   */
  constructor(options: RunCatalogOptions = {}) {
    this.dbPath = options.dbPath ?? DEFAULT_INDEX_PATH;
    this.runsDir = options.runsDir ?? "runs";
  }

  /** The index, opened read-only once its file exists; null without one. */
  async index(): Promise<RunIndex | null> {
    if (this.#index || this.dbPath === "") return this.#index;
    if (!(await stampOf(this.dbPath))) return null;
    this.#index = openIndex(this.dbPath, { readOnly: true });
    return this.#index;
  }

  async #indexRuns(): Promise<Map<string, RunJson>> {
    const index = await this.index();
    const runs = new Map<string, RunJson>();
    if (!index) return runs;
    const rows = index.db.prepare(
      `SELECT id, status, spec, summary, thresholds, model_reported, tool_version, started_at,
        finished_at FROM runs`,
    ).all() as Record<string, SQLInputValue>[];
    for (const r of rows) {
      const json = {
        version: 1, // upgraded below when the index holds a version 1 summary
        tool: TOOL_NAME,
        tool_version: String(r.tool_version),
        id: String(r.id),
        status: String(r.status) as RunJson["status"],
        started_at: String(r.started_at),
        finished_at: r.finished_at === null ? null : String(r.finished_at),
        spec: JSON.parse(String(r.spec)),
        summary: r.summary === null ? null : JSON.parse(String(r.summary)),
        thresholds: JSON.parse(String(r.thresholds)),
        model_reported: r.model_reported === null ? null : String(r.model_reported),
        fatal: null,
      };
      if (json.summary && "metrics" in json.summary) json.version = RUN_JSON_VERSION;
      runs.set(json.id, upgradeRunJson(json) as RunJson);
    }
    return runs;
  }

  async #readRunJson(dir: string): Promise<DirRun | null> {
    const path = join(dir, "run.json");
    const stamp = await stampOf(path);
    if (!stamp) return null;
    const runStamp = `${stamp.mtime}:${stamp.size}`;
    let cached = this.#runJson.get(path);
    if (cached?.stamp !== runStamp) {
      let run: RunJson | null = null;
      try {
        const value = upgradeRunJson(JSON.parse(await Deno.readTextFile(path)));
        run = looksLikeRun(value) ? value : null;
      } catch {
        run = null; // a foreign or half-written file: not a run
      }
      cached = { stamp: runStamp, run };
      this.#runJson.set(path, cached);
    }
    if (!cached.run) return null;
    const decisions = await stampOf(join(dir, "decisions.jsonl"));
    return {
      dir,
      run: cached.run,
      stamp: `${runStamp}:${decisions?.mtime ?? 0}:${decisions?.size ?? 0}`,
    };
  }

  async #dirRuns(): Promise<Map<string, DirRun>> {
    const found = new Map<string, DirRun>();
    if (this.runsDir === "") return found;
    const subdirs = async (dir: string): Promise<string[]> => {
      const names: string[] = [];
      try {
        for await (const entry of Deno.readDir(dir)) {
          if (entry.isDirectory && !entry.isSymlink) names.push(entry.name);
        }
      } catch {
        // a missing or unreadable runs folder lists nothing
      }
      return names.sort().map((name) => join(dir, name));
    };
    for (const dir of await subdirs(this.runsDir)) {
      const here = await this.#readRunJson(dir);
      const candidates = here ? [here] : [];
      if (!here) {
        for (const inner of await subdirs(dir)) {
          const run = await this.#readRunJson(inner);
          if (run) candidates.push(run);
        }
      }
      for (const run of candidates) if (!found.has(run.run.id)) found.set(run.run.id, run);
    }
    return found;
  }

  /**
   * Every run, newest first.
   *
   * @returns The runs of the index and the runs folder, merged by id.
   */
  async list(): Promise<CatalogRun[]> {
    const [indexed, dirs] = await Promise.all([this.#indexRuns(), this.#dirRuns()]);
    const ids = new Set([...indexed.keys(), ...dirs.keys()]);
    const runs: CatalogRun[] = [];
    for (const id of ids) {
      const fromIndex = indexed.get(id);
      const fromDir = dirs.get(id);
      const run = fromDir?.run ?? fromIndex as RunJson;
      const same = fromIndex !== undefined && fromDir !== undefined &&
        fromIndex.status === fromDir.run.status &&
        fromIndex.finished_at === fromDir.run.finished_at;
      const source = fromIndex !== undefined && (same || fromDir === undefined) ? "index" : "file";
      runs.push({
        id,
        run,
        dir: fromDir?.dir ?? null,
        indexed: fromIndex !== undefined,
        source,
        version: source === "index"
          ? `index:${fromIndex?.status}:${fromIndex?.finished_at}`
          : `file:${fromDir?.stamp}`,
      });
    }
    return runs.sort((a, b) =>
      b.run.started_at.localeCompare(a.run.started_at) || b.id.localeCompare(a.id)
    );
  }

  /**
   * One run by id.
   *
   * @param id The run id, exactly (any other string, `..` included, finds nothing).
   * @returns The run, or undefined.
   */
  async get(id: string): Promise<CatalogRun | undefined> {
    return (await this.list()).find((r) => r.id === id);
  }

  async #memoryDb(entry: CatalogRun): Promise<MemoryDb> {
    const key = `${entry.id}\u0000${entry.version}`;
    const hit = this.#memory.find((m) => m.key === key);
    if (hit) return hit;
    // Streamed into the database a batch at a time: the run's decisions are never held as a list.
    const opened = await openRun(entry.dir as string);
    const index = openIndex(":memory:");
    try {
      beginIndexedRun(index, opened.run, { dir: entry.dir });
      let batch: DecisionRecord[] = [];
      let count = 0;
      for await (const r of opened.decisions()) {
        batch.push(r);
        count++;
        if (batch.length === INDEX_BATCH) {
          addIndexedDecisions(index, opened.run.id, batch);
          batch = [];
        }
      }
      if (batch.length > 0) addIndexedDecisions(index, opened.run.id, batch);
      updateIndexedRun(index, opened.run, count, { dir: entry.dir });
    } catch (error) {
      index.close();
      throw error;
    }
    const db: MemoryDb = { key, index };
    for (const old of this.#memory.filter((m) => m.key.startsWith(`${entry.id}\u0000`))) {
      old.index.close();
    }
    this.#memory = [db, ...this.#memory.filter((m) => !m.key.startsWith(`${entry.id}\u0000`))];
    for (const old of this.#memory.splice(MEMORY_DBS)) old.index.close();
    return db;
  }

  /**
   * The database holding a run's decisions (table `decisions`, rows of `run_id` = the run's id).
   *
   * @param entry The run.
   * @returns The index's connection, or an in-memory copy of the run directory's decisions.
   * @throws {TypeError} When the run directory's records do not match their schema.
   */
  async db(entry: CatalogRun): Promise<DatabaseSync> {
    if (entry.source === "index") return (await this.index() as RunIndex).db;
    return (await this.#memoryDb(entry)).index.db;
  }

  /**
   * Every decision of a run, in record order, as a list (the comparison page's paired figures).
   *
   * @param entry The run.
   * @returns The decisions.
   * @throws {TypeError} When the run directory's records do not match their schema.
   */
  async records(entry: CatalogRun): Promise<DecisionRecord[]> {
    return await Array.fromAsync(this.decisions(entry));
  }

  /**
   * Streams a run's decisions in record order from the database that holds them, one row at a
   * time.
   *
   * @param entry The run.
   * @returns The decisions.
   * @throws {TypeError} (while iterating) When the run directory's records do not match their
   *   schema.
   */
  async *decisions(entry: CatalogRun): AsyncGenerator<DecisionRecord> {
    const db = await this.db(entry);
    const rows = db.prepare("SELECT * FROM decisions WHERE run_id = ? ORDER BY rowid")
      .iterate(entry.id) as Iterable<Record<string, SQLInputValue>>;
    for (const row of rows) yield decisionFromRow(row);
  }

  /**
   * How far a run has got: for a running run, the cases its `decisions.jsonl` holds so far.
   *
   * @param entry The run.
   * @returns Status and counts.
   */
  async progress(entry: CatalogRun): Promise<RunProgress> {
    const cases = entry.run.spec.cases;
    const summary = entry.run.summary;
    if (entry.run.status !== "running" || !entry.dir) {
      const decisions = typeof summary?.decisions === "number" ? summary.decisions : 0;
      const done = typeof summary?.cases === "number" ? summary.cases : 0;
      return { id: entry.id, status: entry.run.status, casesDone: done, cases, decisions };
    }
    let text = "";
    try {
      text = await Deno.readTextFile(join(entry.dir, "decisions.jsonl"));
    } catch {
      // nothing answered yet
    }
    const seen = new Set<string>();
    let decisions = 0;
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const record = JSON.parse(line) as { case?: unknown };
        if (typeof record.case === "string") {
          seen.add(record.case);
          decisions++;
        }
      } catch {
        // a torn last line, being written
      }
    }
    return { id: entry.id, status: "running", casesDone: seen.size, cases, decisions };
  }

  /** Closes the index and the in-memory databases. */
  close(): void {
    this.#index?.close();
    this.#index = null;
    for (const m of this.#memory) m.index.close();
    this.#memory = [];
  }
}
