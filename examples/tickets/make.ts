/**
 * Writes the support-ticket question set of this folder: 3,000 tickets as `tickets.csv`,
 * `tickets.jsonl` and `tickets.parquet` (the same rows in each), from a fixed seed. Each ticket
 * has a channel (the lane), a customer tier, a subject and a message, and three labels: its topic
 * (a choice), whether it needs a reply today (yes/no) and its severity (a score of four levels).
 * About one label in fourteen is blank: a ticket nobody has triaged on that question yet.
 *
 * ```sh
 * deno run -A examples/tickets/make.ts          # rewrite the three files
 * deno run -A examples/tickets/make.ts --check  # exit 1 when a file differs from what it writes
 * ```
 *
 * @module
 */
import { parquetWriteBuffer } from "hyparquet-writer";

/** One ticket as written to the files; a null label is a blank cell. */
export interface Ticket {
  ticket_id: string;
  channel: string;
  tier: string;
  subject: string;
  message: string;
  topic: string | null;
  urgent: string | null;
  severity: number | null;
}

const TOPICS = ["billing", "shipping", "returns", "account", "other"] as const;
const CHANNELS = ["email", "chat", "phone", "web"] as const;
const TIERS = ["free", "plus", "business"] as const;

const SUBJECTS: Record<(typeof TOPICS)[number], string[]> = {
  billing: ["Charged twice", "Wrong amount on invoice", "Refund not received", "Card declined"],
  shipping: [
    "Parcel is late",
    "Tracking not updating",
    "Delivered to wrong address",
    "Damaged box",
  ],
  returns: ["How do I return this", "Return label missing", "Exchange for another size"],
  account: ["Cannot log in", "Reset my password", "Change my email", "Close my account"],
  other: ["Question about your stores", "Feedback on the app", "Partnership enquiry"],
};
const OPENERS = ["Hi,", "Hello team,", "Good morning,", "Hey,", "To whom it may concern,"];
const DETAILS = [
  "this is the second time I write about it",
  "my order number is in the previous mail",
  "I need this sorted before Friday",
  "no rush, whenever you can",
  "your chat bot could not help",
  "it has been a week already",
  "I am travelling next week",
  "this is for a gift",
];

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The tickets, the same on every machine.
 *
 * @param count How many.
 * @param seed The seed.
 * @returns The tickets in file order.
 */
export function tickets(count = 3000, seed = 7): Ticket[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const out: Ticket[] = [];
  for (let i = 0; i < count; i++) {
    const topic = pick(TOPICS);
    const channel = pick(CHANNELS);
    const tier = pick(TIERS);
    const severity = Math.min(3, Math.floor(next() * 3) + (tier === "business" ? 1 : 0));
    const urgent = severity >= 2 || (channel === "phone" && next() < 0.5);
    const blank = () => next() < 0.072;
    out.push({
      ticket_id: `T-${String(100001 + i)}`,
      channel,
      tier,
      subject: pick(SUBJECTS[topic]),
      message: `${pick(OPENERS)} ${pick(DETAILS)}; ${pick(DETAILS)}.`,
      topic: blank() ? null : topic,
      urgent: blank() ? null : urgent ? "yes" : "no",
      severity: blank() ? null : severity,
    });
  }
  return out;
}

/** The files' columns, in order. */
export const TICKET_COLUMNS = [
  "ticket_id",
  "channel",
  "tier",
  "subject",
  "message",
  "topic",
  "urgent",
  "severity",
] as const;

function csvCell(value: string | number | null): string {
  if (value === null) return "";
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The three files' bytes.
 *
 * @param rows The tickets.
 * @returns File name to content.
 */
export function files(rows: Ticket[]): Record<string, Uint8Array> {
  const encoder = new TextEncoder();
  const csv = [
    TICKET_COLUMNS.join(","),
    ...rows.map((r) => TICKET_COLUMNS.map((c) => csvCell(r[c])).join(",")),
  ]
    .join("\n") + "\n";
  // JSON and Parquet carry a yes/no label as a boolean; only CSV spells it out.
  const yesNo = (v: string | null) => v === null ? null : v === "yes";
  const jsonl = rows.map((r) => JSON.stringify({ ...r, urgent: yesNo(r.urgent) })).join("\n") +
    "\n";
  const parquet = parquetWriteBuffer({
    columnData: [
      { name: "ticket_id", data: rows.map((r) => r.ticket_id), type: "STRING" },
      { name: "channel", data: rows.map((r) => r.channel), type: "STRING" },
      { name: "tier", data: rows.map((r) => r.tier), type: "STRING" },
      { name: "subject", data: rows.map((r) => r.subject), type: "STRING" },
      { name: "message", data: rows.map((r) => r.message), type: "STRING" },
      { name: "topic", data: rows.map((r) => r.topic), type: "STRING" },
      { name: "urgent", data: rows.map((r) => yesNo(r.urgent)), type: "BOOLEAN" },
      { name: "severity", data: rows.map((r) => r.severity), type: "INT32" },
    ],
  });
  return {
    "tickets.csv": encoder.encode(csv),
    "tickets.jsonl": encoder.encode(jsonl),
    "tickets.parquet": new Uint8Array(parquet),
  };
}

if (import.meta.main) {
  const dir = new URL(".", import.meta.url).pathname;
  const check = Deno.args.includes("--check");
  let differ = 0;
  for (const [name, bytes] of Object.entries(files(tickets()))) {
    const path = `${dir}${name}`;
    if (check) {
      const old = await Deno.readFile(path).catch(() => new Uint8Array());
      const same = old.length === bytes.length && old.every((b, i) => b === bytes[i]);
      if (!same) {
        console.error(`${path} differs from what make.ts writes`);
        differ++;
      }
    } else {
      await Deno.writeFile(path, bytes);
      console.log(`${path}: ${bytes.length} bytes`);
    }
  }
  if (differ) Deno.exit(1);
}
