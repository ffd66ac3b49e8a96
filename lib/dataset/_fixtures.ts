/**
 * Private, for tests: a small "tickets" question set (the workflow contract's example) written as
 * JSONL, CSV or Parquet.
 *
 * @module
 */
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import type { DatasetSpec, QuestionDefinition } from "./schemas.ts";

/** The tickets questions, exactly as the workflow contract writes them. */
export const TICKET_QUESTIONS: Record<string, QuestionDefinition> = {
  urgent: { type: "noul", instructions: "Does this need a reply today?", gold: "is_urgent" },
  team: {
    type: "choice",
    instructions: "Which team?",
    criteria: { billing: "Payments and refunds", shipping: "Parcels and delivery" },
    gold: "team",
  },
  mood: {
    type: "score",
    instructions: "How upset?",
    criteria: ["calm", "annoyed", "angry"],
    gold: "mood",
  },
};

/** One ticket row: id, body, queue and the three labels (null: unlabelled). */
export interface TicketRow {
  /** `ticket_id`. */
  id: string;
  /** `body`: the state. */
  body: string;
  /** `queue`: the lane. */
  queue: string;
  /** `is_urgent`. */
  urgent: boolean | null;
  /** `team`. */
  team: string | null;
  /** `mood` level. */
  mood: number | null;
}

/** Three tickets; the third is unlabelled for urgent and team. */
export const TICKETS: TicketRow[] = [
  {
    id: "T-1",
    body: "Refund my order, I was charged twice!",
    queue: "billing",
    urgent: true,
    team: "billing",
    mood: 2,
  },
  {
    id: "T-2",
    body: "Where is my parcel?",
    queue: "shipping",
    urgent: false,
    team: "shipping",
    mood: 1,
  },
  { id: "T-3", body: "Thanks, all good", queue: "shipping", urgent: null, team: null, mood: 0 },
];

/**
 * The dataset spec of a tickets file.
 *
 * @param path The file.
 * @returns The spec, as the workflow contract writes it.
 */
export function ticketSpec(path: string): DatasetSpec {
  return { path, id: "ticket_id", state: "body", lane: "queue" };
}

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * Writes tickets as a file of the given format into a directory.
 *
 * @param dir Directory.
 * @param format File format.
 * @param rows The tickets.
 * @returns The file's path.
 */
export async function writeTickets(
  dir: string,
  format: "jsonl" | "csv" | "parquet",
  rows: readonly TicketRow[] = TICKETS,
): Promise<string> {
  const path = join(dir, `tickets.${format}`);
  if (format === "jsonl") {
    const lines = rows.map((r) =>
      JSON.stringify({
        ticket_id: r.id,
        body: r.body,
        queue: r.queue,
        is_urgent: r.urgent,
        team: r.team,
        mood: r.mood,
      })
    );
    await Deno.writeTextFile(path, lines.join("\n") + "\n");
  } else if (format === "csv") {
    const lines = ["ticket_id,body,queue,is_urgent,team,mood"];
    for (const r of rows) {
      lines.push([
        r.id,
        csvCell(r.body),
        r.queue,
        r.urgent === null ? "" : r.urgent ? "yes" : "no",
        r.team ?? "",
        r.mood === null ? "" : String(r.mood),
      ].join(","));
    }
    await Deno.writeTextFile(path, lines.join("\r\n") + "\r\n");
  } else {
    const buffer = parquetWriteBuffer({
      columnData: [
        { name: "ticket_id", data: rows.map((r) => r.id), type: "STRING" },
        { name: "body", data: rows.map((r) => r.body), type: "STRING" },
        { name: "queue", data: rows.map((r) => r.queue), type: "STRING" },
        { name: "is_urgent", data: rows.map((r) => r.urgent), type: "BOOLEAN" },
        { name: "team", data: rows.map((r) => r.team), type: "STRING" },
        {
          name: "mood",
          data: rows.map((r) => (r.mood === null ? null : BigInt(r.mood))),
          type: "INT64",
        },
      ],
    });
    await Deno.writeFile(path, new Uint8Array(buffer));
  }
  return path;
}
