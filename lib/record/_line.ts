/**
 * The `decisions.jsonl` line of a decision record, built from parts cached per case question:
 * exactly the text `JSON.stringify(record)` gives (a test compares them on every kind of record),
 * without serialising the case id, workflow, question, type and gold distribution again for each
 * answer.
 *
 * @module
 */
import type { DecisionRecord } from "./schemas.ts";

/** What stays the same for every decision of one case question. */
export interface LineParts {
  /** `{"case":…,"workflow":…,"question":…,"type":…,"predicted":` */
  head: string;
  /** `,"gold":…,"gold_probabilities":{…},"correct":` */
  middle: string;
  /** The predicted distribution's keys in its key order, and each key quoted with its colon. */
  keys: readonly string[];
  /** `"key":` for each of `keys`. */
  quoted: readonly string[];
}

/** The fields every record has, in the order `decisionRecords` writes them. */
const FIXED = 17;

const parts = new WeakMap<DecisionRecord, LineParts>();

/**
 * Remembers the cached parts of a record just built (by `decisionRecords`, with its fields in
 * the order of `DecisionRecordSchema`).
 *
 * @param record The record.
 * @param line Its case question's parts.
 */
export function rememberLineParts(record: DecisionRecord, line: LineParts): void {
  parts.set(record, line);
}

function num(value: number | null): string {
  return value !== null && Number.isFinite(value) ? String(value) : "null";
}

/**
 * The JSON line of a record (without the newline): from its cached parts when it has them, else
 * `JSON.stringify`.
 *
 * @param record The record.
 * @returns The same text as `JSON.stringify(record)`.
 */
export function recordLine(record: DecisionRecord): string {
  const line = parts.get(record);
  if (line === undefined) return JSON.stringify(record);
  let out = line.head;
  const predicted = record.predicted;
  if (predicted === null) out += "null";
  else {
    out += "{";
    for (let i = 0; i < line.keys.length; i++) {
      if (i > 0) out += ",";
      out += line.quoted[i]! + num(predicted[line.keys[i]!] as number);
    }
    out += "}";
  }
  out += `,"answer":${record.answer === null ? "null" : JSON.stringify(record.answer)}`;
  out += `,"confidence":${num(record.confidence)}${line.middle}${record.correct}`;
  out += `,"kl":${num(record.kl)},"brier":${num(record.brier)},"latency_ms":${
    num(record.latency_ms)
  },"attempts":${num(record.attempts)},"input_tokens":${
    num(record.input_tokens)
  },"calibrated":${record.calibrated},"error":${
    record.error === null ? "null" : JSON.stringify(record.error)
  }`;
  // Optional fields (native, warnings, endpoint, response_id, provider, cost), in record order.
  const keys = Object.keys(record);
  for (let i = FIXED; i < keys.length; i++) {
    const key = keys[i]!;
    const json = JSON.stringify((record as unknown as Record<string, unknown>)[key]);
    if (json !== undefined) out += `,${JSON.stringify(key)}:${json}`;
  }
  return out + "}";
}
