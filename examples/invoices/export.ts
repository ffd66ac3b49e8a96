/**
 * Regenerates `invoices.csv`: the 300 `invoice_processing` cases of the Typed Decisions train
 * split (vendored in `vendor/typed-decisions/train.jsonl.gz`) exported the way an accounts-payable
 * system would export them: one row per invoice, one column per state field (each a JSON object),
 * the payment status as the lane, and one column per hard label (the dataset's `label`).
 *
 * ```sh
 * deno run -A examples/invoices/export.ts          # rewrites examples/invoices/invoices.csv
 * deno run -A examples/invoices/export.ts --check  # exits 1 when the file differs
 * ```
 *
 * @module
 */
import { loadDataset } from "../../mod.ts";

const STATE_FIELDS = ["delivery", "invoice", "payment", "purchase_order", "vendor_history"];
const OUT = new URL("./invoices.csv", import.meta.url);

function cell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const yesNo = (label: string): string => (label === "true" ? "yes" : "no");

/**
 * The CSV text of the export.
 *
 * @returns The file's content.
 */
export async function invoicesCsv(): Promise<string> {
  const { cases } = await loadDataset({ split: "train" });
  const invoices = cases.filter((c) => c.workflow === "invoice_processing");
  const header = [
    "case_id",
    "payment_status",
    ...STATE_FIELDS,
    "duplicate_label",
    "matches_order_label",
    "disposition_label",
    "severity_label",
    "urgency_label",
  ];
  const lines = [header.join(",")];
  for (const c of invoices) {
    const state = c.state as Record<string, { status?: string }>;
    const label = (q: string): string => c.gold[q]?.label ?? "";
    lines.push([
      c.id,
      state.payment?.status ?? "",
      ...STATE_FIELDS.map((f) => cell(JSON.stringify(state[f]))),
      yesNo(label("duplicate")),
      yesNo(label("matches_order")),
      label("disposition"),
      label("discrepancy_severity"),
      label("urgency"),
    ].join(","));
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const text = await invoicesCsv();
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(OUT).catch(() => "");
    if (current !== text) {
      console.error("examples/invoices/invoices.csv differs from the export; run without --check");
      Deno.exit(1);
    }
    console.log("examples/invoices/invoices.csv matches the export");
  } else {
    await Deno.writeTextFile(OUT, text);
    console.log(`wrote ${text.split("\n").length - 2} rows to examples/invoices/invoices.csv`);
  }
}
