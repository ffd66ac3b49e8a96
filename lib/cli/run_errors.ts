/**
 * Why an incomplete run failed, read back from its `decisions.jsonl`: which cases failed in a way
 * a resume would only repeat (the server refused the request itself, e.g. 413 too large, or the
 * case breaks the engine's limits), so `bench` names them instead of suggesting `--resume`.
 *
 * @module
 */
import { join } from "node:path";
import { readDecisionLines } from "../record/mod.ts";

/** Error kinds that the same request always meets again: a resume cannot help. */
const DETERMINISTIC: ReadonlySet<string> = new Set(["invalid_request", "limit"]);

/** How many failed cases are named. */
const NAMED = 3;

/** One case that failed deterministically. */
export interface DeterministicFailure {
  /** Case id. */
  case: string;
  /** Error kind (`invalid_request`, `limit`). */
  kind: string;
  /** Its message. */
  message: string;
}

/** The failed cases of a run, split by whether a resume could answer them. */
export interface RunFailures {
  /** The first few cases that failed deterministically. */
  deterministic: DeterministicFailure[];
  /** Cases that failed deterministically. */
  deterministicCases: number;
  /** Cases that failed otherwise (a resume asks them again and may get an answer). */
  otherCases: number;
}

/**
 * Reads a run's failed cases, streamed from its `decisions.jsonl`.
 *
 * @param dir The run directory.
 * @returns The deterministic failures (the first few named) and the count of the others.
 */
export async function runFailures(dir: string): Promise<RunFailures> {
  const deterministic: DeterministicFailure[] = [];
  const seen = new Map<string, boolean>();
  for await (const { record } of readDecisionLines(join(dir, "decisions.jsonl"))) {
    const error = record.error as { kind?: unknown; message?: unknown } | null | undefined;
    if (!error || typeof error.kind !== "string") continue;
    const fixed = DETERMINISTIC.has(error.kind);
    if (seen.has(record.case)) continue;
    seen.set(record.case, fixed);
    if (fixed && deterministic.length < NAMED) {
      deterministic.push({ case: record.case, kind: error.kind, message: String(error.message) });
    }
  }
  let deterministicCases = 0;
  for (const fixed of seen.values()) if (fixed) deterministicCases++;
  return { deterministic, deterministicCases, otherCases: seen.size - deterministicCases };
}

/**
 * What `bench` says of the cases a resume would only fail again.
 *
 * @param failures The run's failures.
 * @returns One line per named case (and one for the rest), or none.
 */
export function deterministicLines(failures: RunFailures): string[] {
  const lines = failures.deterministic.map((f) => {
    const what = /\bHTTP 413\b/.test(f.message)
      ? "is too large for the server"
      : f.kind === "limit"
      ? "breaks the engine's limits"
      : "was refused by the server as an invalid request";
    const fix = /\bHTTP 413\b/.test(f.message)
      ? "shorten its state, or raise the server's request size limit"
      : f.kind === "limit"
      ? "shorten its state or questions"
      : "fix the case or the workflow";
    return `case "${f.case}" ${what} (${f.message}); asking again sends the same request: ${fix}`;
  });
  const rest = failures.deterministicCases - failures.deterministic.length;
  if (rest > 0) lines.push(`… and ${rest} more cases refused the same way (see report.md)`);
  return lines;
}
