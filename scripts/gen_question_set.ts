/**
 * Synthetic question sets for measuring the readers: N rows, 10 lanes, a short text state and
 * three questions with hard labels (a choice of 5, a yes/no, a score of 4), written as JSONL, CSV
 * or Parquet from a seed. With `--read`, reads a set back as a run would (checked whole, then
 * every case streamed) and prints the time and peak memory as one JSON line.
 *
 * ```sh
 * deno run -A scripts/gen_question_set.ts --rows 100000 --format csv --out /tmp/set.csv
 * deno run -A scripts/gen_question_set.ts --read /tmp/set.csv
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { DatasetSpec, QuestionDefinition } from "../lib/dataset/mod.ts";

/** The questions of a synthetic set, with their gold fields. */
export const SYNTHETIC_QUESTIONS: Record<string, QuestionDefinition> = {
  topic: {
    type: "choice",
    instructions: "Which topic is this about?",
    criteria: ["billing", "shipping", "returns", "account", "other"],
    gold: "topic",
  },
  urgent: { type: "noul", instructions: "Does this need a reply today?", gold: "urgent" },
  severity: {
    type: "score",
    instructions: "How severe is it?",
    criteria: ["none", "low", "high", "critical"],
    gold: "severity",
  },
};

/**
 * The dataset spec of a synthetic set.
 *
 * @param path The file.
 * @returns Its field mapping.
 */
export function syntheticSpec(path: string): DatasetSpec {
  return { path, id: "id", state: "text", lane: "lane" };
}

const WORDS = [
  "order",
  "parcel",
  "refund",
  "charged",
  "twice",
  "late",
  "password",
  "login",
  "broken",
  "item",
  "return",
  "label",
  "invoice",
  "please",
  "help",
  "today",
];

/** One synthetic row. */
interface Row {
  id: string;
  lane: string;
  text: string;
  topic: string;
  urgent: boolean;
  severity: number;
}

function* rows(count: number, seed: number): Generator<Row> {
  // mulberry32: small, seeded, the same rows on every machine.
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const topics = SYNTHETIC_QUESTIONS.topic!.criteria as string[];
  for (let i = 0; i < count; i++) {
    const words = Array.from(
      { length: 8 + Math.floor(random() * 12) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    );
    yield {
      id: `case-${String(i + 1).padStart(7, "0")}`,
      lane: `lane_${Math.floor(random() * 10)}`,
      text: words.join(" "),
      topic: topics[Math.floor(random() * topics.length)] as string,
      urgent: random() < 0.3,
      severity: Math.floor(random() * 4),
    };
  }
}

/** Options of {@linkcode writeSyntheticSet}. */
export interface SyntheticSetOptions {
  /**
   * Seed of the rows.
   * @default 1
   */
  seed?: number;
}

/**
 * Writes a synthetic question set, JSONL and CSV as they are generated.
 *
 * @param path The file (its extension picks the format: .jsonl, .csv or .parquet).
 * @param count Rows.
 * @param options Seed.
 * @returns The file's size in bytes.
 * @throws {TypeError} When the extension is not .jsonl, .csv or .parquet.
 */
export async function writeSyntheticSet(
  path: string,
  count: number,
  options: SyntheticSetOptions = {},
): Promise<number> {
  const format = /\.(jsonl|csv|parquet)$/.exec(path)?.[1];
  if (format === undefined) {
    throw new TypeError(`Cannot write "${path}": not .jsonl, .csv or .parquet`);
  }
  const seed = options.seed ?? 1;
  if (format === "parquet") {
    const { parquetWriteBuffer } = await import("hyparquet-writer");
    const all = [...rows(count, seed)];
    const buffer = parquetWriteBuffer({
      rowGroupSize: 100_000,
      columnData: [
        { name: "id", data: all.map((r) => r.id), type: "STRING" },
        { name: "lane", data: all.map((r) => r.lane), type: "STRING" },
        { name: "text", data: all.map((r) => r.text), type: "STRING" },
        { name: "topic", data: all.map((r) => r.topic), type: "STRING" },
        { name: "urgent", data: all.map((r) => r.urgent), type: "BOOLEAN" },
        { name: "severity", data: all.map((r) => r.severity), type: "INT32" },
      ],
    });
    await Deno.writeFile(path, new Uint8Array(buffer));
    return buffer.byteLength;
  }
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let batch: string[] = format === "csv" ? ["id,lane,text,topic,urgent,severity"] : [];
  const flush = async () => {
    const bytes = encoder.encode(batch.join("\n") + "\n");
    for (let written = 0; written < bytes.length;) {
      written += await file.write(bytes.subarray(written));
    }
    batch = [];
  };
  for (const r of rows(count, seed)) {
    batch.push(
      format === "jsonl"
        ? JSON.stringify(r)
        : `${r.id},${r.lane},${r.text},${r.topic},${r.urgent ? "yes" : "no"},${r.severity}`,
    );
    if (batch.length >= 10_000) await flush();
  }
  if (batch.length) await flush();
  return (await Deno.stat(path)).size;
}

async function read(path: string): Promise<void> {
  const { openQuestionSet } = await import("../lib/dataset/mod.ts");
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  };
  const timer = setInterval(sample, 20);
  const started = performance.now();
  const set = await openQuestionSet({
    dataset: syntheticSpec(path),
    questions: SYNTHETIC_QUESTIONS,
  });
  const checked = performance.now();
  const afterCheck = peak;
  let streamed = 0;
  for await (const _ of set.cases()) streamed++;
  const done = performance.now();
  sample();
  clearInterval(timer);
  console.log(JSON.stringify({
    file: path,
    bytes: (await Deno.stat(path)).size,
    rows: set.count,
    decisions: set.decisions,
    streamed,
    check_ms: Math.round(checked - started),
    stream_ms: Math.round(done - checked),
    peak_rss_mb_check: Math.round(afterCheck / 2 ** 20),
    peak_rss_mb: Math.round(peak / 2 ** 20),
  }));
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      rows: { type: "string", default: "1000" },
      format: { type: "string", default: "jsonl" },
      out: { type: "string" },
      seed: { type: "string", default: "1" },
      read: { type: "string" },
    },
  });
  if (values.read !== undefined) {
    await read(values.read);
  } else {
    const count = Number(values.rows);
    if (!Number.isInteger(count) || count < 1) {
      console.error(
        `decibench: Cannot generate: --rows "${values.rows}" is not a positive integer`,
      );
      Deno.exit(2);
    }
    const out = values.out ?? `synthetic-${count}.${values.format}`;
    const bytes = await writeSyntheticSet(out, count, { seed: Number(values.seed) });
    console.log(`${out}: ${count} rows, ${bytes} bytes`);
  }
}
