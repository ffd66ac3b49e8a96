/**
 * Decisions as Apache Parquet (hyparquet-writer), for DuckDB, Polars, Spark or pandas: one row per
 * decision with the record's fields and the run id. The predicted and gold distributions are
 * Parquet `MAP<STRING, DOUBLE>` columns in option order (DuckDB reads `MAP(VARCHAR, DOUBLE)` and
 * indexes it as `predicted['billing']`; Polars reads a list of `{key, value}` structs; Spark a
 * `MapType`); n/a values are nulls. The file is written a row group at a time as the decisions are
 * read: memory holds one row group, whatever the number of decisions.
 *
 * @module
 */
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import type { DecisionRecord } from "../record/mod.ts";
import type { ExportInput, ExportResult } from "./types.ts";

/** Decisions per row group: one group's columns are what the export holds in memory. */
export const PARQUET_ROW_GROUP_ROWS = 20_000;

/** The file's path under the export root. */
export const PARQUET_PATH = "decisions.parquet";

type Scalar = "STRING" | "DOUBLE" | "INT32" | "BOOLEAN" | "JSON";

/** One scalar column: its name, Parquet type, whether it may be null, and its value. */
interface ScalarColumn {
  name: string;
  type: Scalar;
  nullable: boolean;
  value(r: DecisionRecord, runId: string): unknown;
}

/** The scalar columns, in order; the two distributions follow them. */
const SCALARS: readonly ScalarColumn[] = [
  { name: "run_id", type: "STRING", nullable: false, value: (_, id) => id },
  { name: "case", type: "STRING", nullable: false, value: (r) => r.case },
  { name: "workflow", type: "STRING", nullable: false, value: (r) => r.workflow },
  { name: "question", type: "STRING", nullable: false, value: (r) => r.question },
  { name: "type", type: "STRING", nullable: false, value: (r) => r.type },
  { name: "answer", type: "STRING", nullable: true, value: (r) => r.answer },
  { name: "confidence", type: "DOUBLE", nullable: true, value: (r) => r.confidence },
  { name: "gold", type: "STRING", nullable: true, value: (r) => r.gold },
  // Null for an unlabelled decision (no gold): neither right nor wrong.
  {
    name: "correct",
    type: "BOOLEAN",
    nullable: true,
    value: (r) => r.gold === null ? null : r.correct,
  },
  { name: "kl", type: "DOUBLE", nullable: true, value: (r) => r.kl },
  { name: "brier", type: "DOUBLE", nullable: true, value: (r) => r.brier },
  { name: "latency_ms", type: "DOUBLE", nullable: true, value: (r) => r.latency_ms },
  { name: "attempts", type: "INT32", nullable: false, value: (r) => r.attempts },
  { name: "input_tokens", type: "INT32", nullable: true, value: (r) => r.input_tokens },
  { name: "calibrated", type: "BOOLEAN", nullable: true, value: (r) => r.calibrated },
  { name: "error_kind", type: "STRING", nullable: true, value: (r) => r.error?.kind ?? null },
  {
    name: "error_message",
    type: "STRING",
    nullable: true,
    value: (r) => r.error?.message ?? null,
  },
  { name: "endpoint", type: "STRING", nullable: true, value: (r) => r.endpoint ?? null },
  { name: "provider", type: "STRING", nullable: true, value: (r) => r.provider ?? null },
  { name: "response_id", type: "STRING", nullable: true, value: (r) => r.response_id ?? null },
  { name: "cost", type: "DOUBLE", nullable: true, value: (r) => r.cost ?? null },
  {
    name: "warnings",
    type: "JSON",
    nullable: true,
    value: (r) => r.warnings === undefined ? null : JSON.stringify(r.warnings),
  },
  {
    name: "native",
    type: "JSON",
    nullable: true,
    value: (r) => r.native === undefined ? null : JSON.stringify(r.native),
  },
];

/** The distribution columns: `MAP<STRING, DOUBLE>`, entries in option order. */
const DISTRIBUTIONS = ["predicted", "gold_probabilities"] as const;

/** The Parquet file's columns, in order. */
export const PARQUET_COLUMNS: readonly string[] = [
  ...SCALARS.map((c) => c.name),
  ...DISTRIBUTIONS,
];

// deno-lint-ignore no-explicit-any
type SchemaElement = Record<string, any>;

const PHYSICAL: Readonly<Record<Scalar, SchemaElement>> = {
  STRING: { type: "BYTE_ARRAY", converted_type: "UTF8" },
  JSON: { type: "BYTE_ARRAY", converted_type: "JSON" },
  DOUBLE: { type: "DOUBLE" },
  INT32: { type: "INT32" },
  BOOLEAN: { type: "BOOLEAN" },
};

function schema(): SchemaElement[] {
  const out: SchemaElement[] = [{ name: "root", num_children: PARQUET_COLUMNS.length }];
  for (const c of SCALARS) {
    out.push({
      name: c.name,
      ...PHYSICAL[c.type],
      repetition_type: c.nullable ? "OPTIONAL" : "REQUIRED",
    });
  }
  for (const name of DISTRIBUTIONS) {
    out.push(
      { name, repetition_type: "OPTIONAL", converted_type: "MAP", num_children: 1 },
      { name: "key_value", repetition_type: "REPEATED", num_children: 2 },
      { name: "key", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" },
      { name: "value", type: "DOUBLE", repetition_type: "REQUIRED" },
    );
  }
  return out;
}

/** A ByteWriter whose bytes are taken out after each row group (and at the end). */
class DrainingWriter extends ByteWriter {
  readonly #ready: Uint8Array[] = [];

  flush(): void {
    if (this.index === 0) return;
    this.#ready.push(this.getBytes().slice());
    this.index = 0;
  }

  /** The bytes written since the last call. */
  take(): Uint8Array[] {
    this.flush();
    return this.#ready.splice(0);
  }
}

async function* parquetChunks(
  input: ExportInput,
  rowGroupRows: number,
): AsyncGenerator<Uint8Array> {
  const writer = new DrainingWriter();
  const parquet = new ParquetWriter({
    writer,
    // deno-lint-ignore no-explicit-any
    schema: schema() as any,
    kvMetadata: [
      { key: "decibench.run_id", value: input.run.id },
      { key: "decibench.tool_version", value: input.run.tool_version },
    ],
    createdBy: `decibench ${input.run.tool_version}`,
  });
  const empty = () => PARQUET_COLUMNS.map((): unknown[] => []);
  let columns = empty();
  let rows = 0;
  const writeGroup = async () => {
    if (rows === 0) return;
    await parquet.write({
      columnData: PARQUET_COLUMNS.map((name, i) => ({
        name,
        data: columns[i] as unknown[],
      })),
      rowGroupSize: rows,
    });
    columns = empty();
    rows = 0;
  };
  for await (const r of input.decisions()) {
    for (const [i, c] of SCALARS.entries()) {
      (columns[i] as unknown[]).push(c.value(r, input.run.id));
    }
    (columns[SCALARS.length] as unknown[]).push(r.predicted);
    (columns[SCALARS.length + 1] as unknown[]).push(r.gold_probabilities);
    if (++rows === rowGroupRows) {
      await writeGroup();
      yield* writer.take();
    }
  }
  await writeGroup();
  await parquet.finish();
  yield* writer.take();
}

/** Options of {@linkcode exportParquet}. */
export interface ParquetExportOptions {
  /**
   * Decisions per row group.
   * @default {PARQUET_ROW_GROUP_ROWS}
   */
  rowGroupRows?: number | undefined;
}

/**
 * Exports a run's decisions as one Parquet file, written a row group at a time as the decisions
 * are read.
 *
 * @param input The run and its decisions.
 * @param options The row group size.
 * @returns The file (path `decisions.parquet`).
 * @throws {RangeError} When the row group size is not a positive integer.
 * @example
 * ```ts ignore
 * import { openRun } from "../record/mod.ts";
 * import { exportParquet } from "./parquet.ts";
 * const { files } = exportParquet(await openRun("runs/<id>"));
 * ```
 */
export function exportParquet(
  input: ExportInput,
  options: ParquetExportOptions = {},
): ExportResult {
  const rowGroupRows = options.rowGroupRows ?? PARQUET_ROW_GROUP_ROWS;
  if (!Number.isSafeInteger(rowGroupRows) || rowGroupRows < 1) {
    throw new RangeError(
      `Cannot export as parquet: the row group size ${rowGroupRows} is not a positive integer`,
    );
  }
  return {
    format: "parquet",
    files: [{ path: PARQUET_PATH, chunks: () => parquetChunks(input, rowGroupRows) }],
  };
}
