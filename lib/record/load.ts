/**
 * Reads a run directory back: `run.json` validated against its schema, and the decisions of
 * `decisions.jsonl` (a torn last line from a crash is skipped), either streamed
 * ({@linkcode openRun}: one line in memory at a time) or all at once ({@linkcode loadRun}).
 *
 * @module
 */
import { join } from "node:path";
import { readDecisionLines } from "./lines.ts";
import {
  type DecisionRecord,
  DecisionRecordSchema,
  RUN_JSON_VERSION,
  type RunJson,
  RunJsonSchema,
} from "./schemas.ts";

/**
 * Upgrades a version 1 `run.json` (metric values as top-level summary fields `accuracy`, `kl`,
 * `brier`, `ece`) to the current version (values under `summary.metrics`; `nll` n/a). Anything
 * else is returned as it is.
 *
 * @param json A parsed `run.json`.
 * @returns The same record in the current version's shape.
 */
export function upgradeRunJson(json: unknown): unknown {
  if (!isObject(json) || json.version !== 1) return json;
  const summary = json.summary;
  let upgraded: unknown = summary;
  if (isObject(summary) && !("metrics" in summary)) {
    const { accuracy, kl, brier, ece, intervals, ...rest } = summary;
    upgraded = {
      ...rest,
      metrics: { accuracy, kl, brier, ece, nll: null },
      intervals: { ...(isObject(intervals) ? intervals : {}), nll: null },
    };
  }
  return { ...json, version: RUN_JSON_VERSION, summary: upgraded };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A run opened from its directory: `run.json` read, its decisions read when iterated. */
export interface OpenedRun {
  /** The run directory. */
  dir: string;
  /** `run.json`. */
  run: RunJson;
  /**
   * Streams the decisions of `decisions.jsonl` in file order (the order cases were answered),
   * each checked against its schema; the file is read anew on every call.
   *
   * @returns The decisions, one at a time.
   * @throws {TypeError} (while iterating) When a decision line does not match its schema.
   */
  decisions(): AsyncIterable<DecisionRecord>;
}

/** A run read back from its directory with every decision in memory. */
export interface LoadedRun extends OpenedRun {
  /** The decisions of `decisions.jsonl`, in file order (the order cases were answered). */
  records: DecisionRecord[];
}

/**
 * Opens a run directory: reads and validates `run.json`; its decisions are streamed from
 * `decisions.jsonl` when {@linkcode OpenedRun.decisions} is iterated, so memory stays bounded
 * whatever the run's size.
 *
 * @param dir The run directory (holding `run.json` and `decisions.jsonl`).
 * @returns The run record and a way to stream its decisions.
 * @throws {Deno.errors.NotFound} When the directory or its `run.json` does not exist.
 * @throws {SyntaxError} When `run.json` is not JSON.
 * @throws {TypeError} When `run.json` does not match its schema.
 * @example
 * ```ts ignore
 * import { openRun } from "./load.ts";
 * const opened = await openRun("runs/20260101-120000-reference-ab12");
 * let n = 0;
 * for await (const _ of opened.decisions()) n++;
 * console.log(opened.run.status, n);
 * ```
 */
export async function openRun(dir: string): Promise<OpenedRun> {
  const run = await readRunJson(dir);
  return { dir, run, decisions: () => checkedDecisions(dir) };
}

/**
 * Reads and validates a run directory, holding every decision in memory (what `--resume`
 * needs). Readers that go through the decisions once use {@linkcode openRun} instead.
 *
 * @param dir The run directory (holding `run.json` and `decisions.jsonl`).
 * @returns The run record and its decisions.
 * @throws {Deno.errors.NotFound} When the directory or its `run.json` does not exist.
 * @throws {SyntaxError} When `run.json` is not JSON.
 * @throws {TypeError} When `run.json` or a decision line does not match its schema.
 * @example
 * ```ts ignore
 * import { loadRun } from "./load.ts";
 * const { run, records } = await loadRun("runs/20260101-120000-reference-ab12");
 * console.log(run.status, records.length);
 * ```
 */
export async function loadRun(dir: string): Promise<LoadedRun> {
  const opened = await openRun(dir);
  const records = await Array.fromAsync(opened.decisions());
  return { ...opened, records };
}

async function readRunJson(dir: string): Promise<RunJson> {
  const path = join(dir, "run.json");
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(
        `Cannot read run "${dir}": "${path}" does not exist; pass a run directory such as runs/<run-id>, or its run id`,
      );
    }
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(
      `Cannot read run "${dir}": "${path}" is not JSON (${(error as Error).message})`,
    );
  }
  const parsed = RunJsonSchema.safeParse(upgradeRunJson(json));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "(root)";
    throw new TypeError(
      `Cannot read run "${dir}": field "${field}" of "${path}" is invalid (${
        issue?.message ?? "unknown"
      })`,
    );
  }
  return parsed.data;
}

async function* checkedDecisions(dir: string): AsyncGenerator<DecisionRecord> {
  let count = 0;
  for await (const { line, record } of readDecisionLines(join(dir, "decisions.jsonl"))) {
    count++;
    const checked = DecisionRecordSchema.safeParse(record);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new TypeError(
        `Cannot read run "${dir}": decision ${count} of decisions.jsonl (line ${line}) has an invalid field "${
          issue?.path.join(".") ?? ""
        }" (${issue?.message ?? "unknown"})`,
      );
    }
    yield record; // the line as written: key order and any extra fields kept
  }
}

/**
 * Where a run named on the command line lives: the argument itself when it exists, else the run
 * id under `runsDir` when that exists, else the argument (so the caller's message names it). Every
 * command that takes a run directory takes a run id this way.
 *
 * @param arg A directory, or a run id.
 * @param runsDir Where run ids are looked up.
 * @returns The directory to read.
 */
export async function resolveRunDir(arg: string, runsDir = "runs"): Promise<string> {
  const underRuns = join(runsDir, arg);
  return !(await pathExists(arg)) && await pathExists(underRuns) ? underRuns : arg;
}

/**
 * Reads a run named on the command line: a run directory, or the id of a run under `runsDir`.
 *
 * @param arg A directory, or a run id.
 * @param runsDir Where run ids are looked up.
 * @returns The run, opened by {@linkcode openRun} (its decisions streamed when iterated).
 * @throws {Deno.errors.NotFound} When neither exists (the message says what to pass).
 * @throws {TypeError} When `run.json` does not match its schema.
 */
export async function findRun(arg: string, runsDir = "runs"): Promise<OpenedRun> {
  return await openRun(await resolveRunDir(arg, runsDir));
}

async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
