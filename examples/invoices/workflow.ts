// Vendor invoices as an accounts-payable system exports them: examples/invoices/invoices.csv holds
// the 300 `invoice_processing` cases of the Typed Decisions train split (Apache-2.0, credited in
// README.md), one column per state field and one column per hard label. The embedded reference
// server answers with the `uniform` predictor; point it at a model with --base-url.
import { defineWorkflow } from "decibench/workflow";

export default defineWorkflow({
  name: "invoices",
  endpoint: {
    baseUrl: "http://127.0.0.1:8080",
    reference: { predictor: "uniform" }, // --base-url overrides it
  },
  dataset: {
    path: "invoices.csv",
    id: "case_id",
    state: ["delivery", "invoice", "payment", "purchase_order", "vendor_history"],
    lane: "payment_status",
  },
  questions: {
    discrepancy_severity: {
      type: "score",
      instructions:
        "How material is any discrepancy between the invoice, the order and the delivery?",
      criteria: [
        "None: everything reconciles.",
        "Trivial: rounding or a cosmetic difference.",
        "Moderate: a real difference worth confirming.",
        "Material: a large or unexplained difference.",
      ],
      gold: "severity_label",
    },
    disposition: {
      type: "choice",
      instructions: "How should this vendor invoice be dispositioned?",
      criteria: {
        approve: "Matches the order and delivery; approve for payment.",
        hold: "Something needs confirming before payment; hold pending clarification.",
        manual_review: "A human in finance must review the discrepancy.",
        reject: "Should not be paid: duplicate, unauthorised or materially wrong.",
      },
      gold: "disposition_label",
    },
    duplicate: {
      type: "noul",
      instructions: "This invoice appears to duplicate an invoice already submitted.",
      gold: "duplicate_label",
    },
    matches_order: {
      type: "noul",
      instructions: "The invoice reconciles with the purchase order and the recorded delivery.",
      criteria: {
        true: "Line items, quantities and amounts reconcile.",
        false: "There is a discrepancy against the order or the delivery.",
      },
      gold: "matches_order_label",
    },
    urgency: {
      type: "score",
      instructions: "How time-sensitive is processing this invoice?",
      criteria: [
        "No time pressure; can wait indefinitely.",
        "Routine; handle within the normal queue.",
        "Elevated; should be handled within the same week.",
        "Critical; requires action within the same day.",
      ],
      gold: "urgency_label",
    },
  },
  thresholds: [
    { metric: "accuracy", question: "matches_order", op: ">=", limit: 0.85, bound: "lower" },
  ],
});
