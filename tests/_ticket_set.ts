// A small copy of examples/tickets for end-to-end tests: its first rows as CSV (comma or
// semicolon), JSONL with JSON booleans, and a workflow against the embedded reference server.
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { parseCsv } from "../lib/dataset/csv.ts";
import { ROOT } from "./bench_cli_helpers.ts";

import { TICKET_COLUMNS as COLUMNS } from "../examples/tickets/make.ts";

/** The first `n` rows of examples/tickets/tickets.csv, as header-keyed records. */
export async function ticketRows(n: number): Promise<Record<string, string>[]> {
  const text = await Deno.readTextFile(join(ROOT, "examples/tickets/tickets.csv"));
  const [header, ...rows] = parseCsv(text);
  if (header?.fields.join(",") !== COLUMNS.join(",")) {
    throw new TypeError("examples/tickets/tickets.csv: unexpected header");
  }
  return rows.slice(0, n).map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r.fields[i]!])));
}

function csvCell(value: string, delimiter: string): string {
  return /["\n\r]/.test(value) || value.includes(delimiter) || value.includes(",")
    ? `"${value.replaceAll('"', '""')}"`
    : value;
}

/**
 * Writes rows as CSV.
 *
 * @param path Where.
 * @param rows The rows.
 * @param delimiter `,` or `;`.
 */
export async function writeCsv(
  path: string,
  rows: readonly Record<string, string>[],
  delimiter = ",",
): Promise<void> {
  const lines = [COLUMNS.join(delimiter)];
  for (const row of rows) {
    lines.push(COLUMNS.map((c) => csvCell(row[c] ?? "", delimiter)).join(delimiter));
  }
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
}

/**
 * Writes rows as JSONL with the yes/no label as a JSON boolean, the score as a number and blank
 * labels left out (unlabelled).
 *
 * @param path Where.
 * @param rows The rows.
 */
export async function writeJsonl(
  path: string,
  rows: readonly Record<string, string>[],
): Promise<void> {
  const lines = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const c of COLUMNS) {
      const v = row[c] ?? "";
      if (v === "" && (c === "topic" || c === "urgent" || c === "severity")) continue;
      out[c] = c === "urgent" ? v === "yes" : c === "severity" ? Number(v) : v;
    }
    return JSON.stringify(out);
  });
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
}

/**
 * Writes rows as Parquet: the yes/no label as a boolean, the score as an INT32, blank labels null.
 *
 * @param path Where.
 * @param rows The rows.
 */
export async function writeParquet(
  path: string,
  rows: readonly Record<string, string>[],
): Promise<void> {
  const text = (c: string) => rows.map((r) => r[c] ?? "");
  const label = <T>(c: string, read: (v: string) => T) =>
    rows.map((r) => (r[c] ?? "") === "" ? null : read(r[c]!));
  const buffer = parquetWriteBuffer({
    columnData: [
      ...["ticket_id", "channel", "tier", "subject", "message"].map((name) => ({
        name,
        data: text(name),
        type: "STRING" as const,
      })),
      { name: "topic", data: label("topic", (v) => v), type: "STRING" },
      { name: "urgent", data: label("urgent", (v) => v === "yes"), type: "BOOLEAN" },
      { name: "severity", data: label("severity", Number), type: "INT32" },
    ],
  });
  await Deno.writeFile(path, new Uint8Array(buffer));
}

/** Options of {@linkcode writeTicketWorkflow}. */
export interface TicketWorkflowOptions {
  /** The question set file, relative to the workflow. @default "tickets.csv" */
  path?: string;
  /** The embedded predictor. @default "uniform" */
  predictor?: string;
  /** Faults of the embedded server (`kind=rate,…`). @default none */
  faults?: string;
  /** YAML lines of `thresholds:` items. @default none */
  thresholds?: string[];
  /** Questions: all three, or only `urgent`. @default "all" */
  questions?: "all" | "urgent";
  /** The workflow's file name. @default "workflow.yaml" */
  name?: string;
}

/**
 * Writes a tickets workflow into `dir`.
 *
 * @param dir The folder (holding the question set file).
 * @param options File, predictor, faults, thresholds.
 * @returns The workflow's path.
 */
export async function writeTicketWorkflow(
  dir: string,
  options: TicketWorkflowOptions = {},
): Promise<string> {
  const faults = options.faults ? `, faults: "${options.faults}", seed: 3` : "";
  const urgent = `  urgent:
    type: noul
    instructions: This ticket needs a reply today.
    gold: urgent`;
  const others = `  topic:
    type: choice
    instructions: Which team should handle this support ticket?
    criteria:
      billing: Charges, invoices, refunds and payment methods.
      shipping: Delivery, tracking and parcels.
      returns: Returns, exchanges and return labels.
      account: Log-in, passwords and account settings.
      other: Anything else.
    gold: topic
  severity:
    type: score
    instructions: How severe is the customer's problem?
    criteria: ["None", "Low", "High", "Critical"]
    gold: severity`;
  const thresholds = options.thresholds?.length
    ? `thresholds:\n${options.thresholds.map((t) => `  - ${t}`).join("\n")}\n`
    : "";
  const text = `name: tickets
endpoint:
  baseUrl: http://127.0.0.1:9
  reference: { predictor: ${options.predictor ?? "uniform"}${faults} }
dataset:
  path: ${options.path ?? "tickets.csv"}
  id: ticket_id
  state: [tier, subject, message]
  lane: channel
questions:
${urgent}
${options.questions === "urgent" ? "" : others}
${thresholds}`;
  const file = join(dir, options.name ?? "workflow.yaml");
  await Deno.writeTextFile(file, text);
  return file;
}
