/**
 * Why decisions failed: errors by kind with their counts and one example message per kind, the
 * one table the terminal, Markdown and HTML reports all show.
 *
 * @module
 */
import { redact } from "../client/mod.ts";
import type { DecisionRecord } from "../record/mod.ts";
import type { TableData } from "./tables.ts";

/** Characters of an example message a report shows. */
export const EXAMPLE_CHARS = 160;

/** One error kind of a run. */
export interface ErrorKindRow {
  /** The error kind, e.g. `network`. */
  kind: string;
  /** Decisions that failed with it. */
  decisions: number;
  /** Cases that failed with it. */
  cases: number;
  /** The first message of that kind, bearer tokens redacted, cut at {@linkcode EXAMPLE_CHARS}. */
  example: string;
}

/**
 * Failed decisions grouped by error kind, most decisions first (ties in order of appearance).
 *
 * @param records The run's decisions.
 * @returns One row per kind (empty when nothing failed).
 * @example
 * ```ts
 * import { errorsByKind } from "./errors.ts";
 * const failed = { case: "c1", error: { kind: "network", message: "Cannot reach \"x\"" } };
 * errorsByKind([failed, { ...failed, case: "c2" }] as never)[0]?.cases; // 2
 * ```
 */
export function errorsByKind(
  records: readonly Pick<DecisionRecord, "case" | "error">[],
): ErrorKindRow[] {
  const kinds = new Map<string, { decisions: number; cases: Set<string>; example: string }>();
  for (const r of records) {
    if (!r.error) continue;
    let row = kinds.get(r.error.kind);
    if (!row) {
      row = { decisions: 0, cases: new Set(), example: exampleText(r.error.message) };
      kinds.set(r.error.kind, row);
    }
    row.decisions++;
    row.cases.add(r.case);
  }
  return [...kinds]
    .map(([kind, r]) => ({ kind, decisions: r.decisions, cases: r.cases.size, example: r.example }))
    .sort((a, b) => b.decisions - a.decisions);
}

/**
 * An error message as a report shows it: whitespace collapsed, bearer tokens redacted, cut at
 * {@linkcode EXAMPLE_CHARS}.
 *
 * @param message The message.
 * @returns The example text.
 */
export function exampleText(message: string): string {
  const text = redact(message.replace(/\s+/g, " ").trim(), []);
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS - 1)}…` : text;
}

/**
 * The errors-by-kind table: kind, decisions, cases, example message.
 *
 * @param rows The run's errors by kind ({@linkcode errorsByKind}, or a report model's `errors`).
 * @returns The table (no rows when nothing failed).
 */
export function errorKindData(rows: readonly ErrorKindRow[]): TableData {
  return {
    header: ["kind", "decisions", "cases", "example"],
    rows: rows.map((r) => [
      r.kind,
      String(r.decisions),
      String(r.cases),
      r.example,
    ]),
  };
}
