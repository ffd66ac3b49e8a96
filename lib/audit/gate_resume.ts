/**
 * Finishing a gate (`deno task gate --resume DIR`): its `gate.json` and `gate.jsonl` read back and
 * checked, so that only the cases left undecided are asked again, of the same question, bar,
 * endpoint, model and question-set file.
 *
 * @module
 */
import { join } from "node:path";
import type { GateRecord } from "./gate_report.ts";
import type { GateRun } from "./gate_run.ts";

/** A gate read back from its directory. */
export interface SavedGate {
  /** The directory. */
  dir: string;
  /** `gate.json`. */
  run: GateRun;
  /** `gate.jsonl`, in case order. */
  records: GateRecord[];
}

const VERDICTS = new Set(["pass", "fail", "escalate", "undecided"]);

/**
 * Reads a gate's directory for `--resume`.
 *
 * @param dir The gate's directory (holding `gate.json` and `gate.jsonl`).
 * @returns Its configuration and verdicts.
 * @throws {TypeError} When a file is missing, is not JSON, or a line is not a gate verdict (naming
 *   the file and line).
 */
export async function readSavedGate(dir: string): Promise<SavedGate> {
  const read = async (name: string): Promise<string> => {
    const path = join(dir, name);
    try {
      return await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new TypeError(
          `Cannot resume the gate in "${dir}": "${path}" does not exist; pass the directory a gate wrote, such as runs/gate-<id>`,
        );
      }
      throw error;
    }
  };
  let run: GateRun;
  try {
    run = JSON.parse(await read("gate.json")) as GateRun;
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw new TypeError(`Cannot resume the gate in "${dir}": gate.json is not JSON`);
    }
    throw error;
  }
  if (typeof run !== "object" || run === null || typeof run.question !== "string") {
    throw new TypeError(`Cannot resume the gate in "${dir}": gate.json names no question`);
  }
  const records: GateRecord[] = [];
  for (const [i, line] of (await read("gate.jsonl")).split("\n").entries()) {
    if (!line.trim()) continue;
    let record: GateRecord;
    try {
      record = JSON.parse(line) as GateRecord;
    } catch {
      throw new TypeError(
        `Cannot resume the gate in "${dir}": gate.jsonl line ${i + 1} is not JSON`,
      );
    }
    if (typeof record?.id !== "string" || !VERDICTS.has(record.verdict)) {
      throw new TypeError(
        `Cannot resume the gate in "${dir}": gate.jsonl line ${
          i + 1
        } is not a gate verdict (id and verdict)`,
      );
    }
    records.push(record);
  }
  return { dir, run, records };
}

/**
 * What differs between a saved gate and the one about to finish it, or null when they match:
 * the question, the bar and its calibration mark, the question-set revision, the endpoint and
 * the model must be the same, or the verdicts would mix two gates.
 *
 * @param saved The saved gate's `gate.json`.
 * @param now The same fields of the gate about to run.
 * @returns A phrase naming the first field that differs and both values, or null.
 */
export function gateMismatch(
  saved: Pick<GateRun, "question" | "threshold" | "calibrated" | "revision" | "endpoint" | "model">,
  now: Pick<GateRun, "question" | "threshold" | "calibrated" | "revision" | "endpoint" | "model">,
): string | null {
  const fields = [
    ["question", "--question"],
    ["threshold", "--threshold"],
    ["calibrated", "--calibrated"],
    ["revision", "the question set's sha256"],
    ["endpoint", "--base-url or the workflow's endpoint"],
    ["model", "--model"],
  ] as const;
  for (const [field, flag] of fields) {
    if (saved[field] !== now[field]) {
      return `${field} was ${JSON.stringify(saved[field])}, now ${
        JSON.stringify(now[field])
      } (${flag})`;
    }
  }
  return null;
}
