/**
 * Answer warnings in reports: how many decisions carry each warning an engine raised (a low
 * `fit_mass` from dohnuts, a pcdServer description clipped at 1,024 bytes), so they are seen
 * without reading `decisions.jsonl`.
 *
 * @module
 */
import type { DecisionRecord } from "../record/mod.ts";

/**
 * Counts decisions per kind of warning. Warnings are grouped by their text before the first
 * digit-bearing detail (`low fit_mass 0.50: …` and `low fit_mass 0.41: …` are one kind).
 *
 * @param records The run's decisions.
 * @returns `[kind, decisions, example]` rows, most frequent first.
 * @example
 * ```ts
 * import { warningCounts } from "./warnings.ts";
 * const rows = warningCounts([
 *   { warnings: ["low fit_mass 0.50: no level describes the state well"] },
 *   { warnings: ["low fit_mass 0.41: no level describes the state well"] },
 *   {},
 * ]);
 * rows[0]?.[1]; // 2
 * ```
 */
export function warningCounts(
  records: readonly Pick<DecisionRecord, "warnings">[],
): [string, number, string][] {
  const counts = new Map<string, [number, string]>();
  for (const r of records) {
    for (const warning of new Set(r.warnings ?? [])) {
      const kind = warning.replace(/[\d.,]+/g, "#");
      const entry = counts.get(kind) ?? [0, warning];
      entry[0]++;
      counts.set(kind, entry);
    }
  }
  return [...counts].map(([kind, [n, example]]): [string, number, string] => [kind, n, example])
    .sort((a, b) => b[1] - a[1]);
}

/**
 * Report lines for the warnings of a run, empty when there are none.
 *
 * @param counts The run's warnings by kind ({@linkcode warningCounts}, or a report model's
 *   `warnings`).
 * @returns One line per kind of warning: `N decisions: <example>`.
 */
export function warningLines(counts: readonly (readonly [string, number, string])[]): string[] {
  return counts.map(([, n, example]) => `${n} decision${n === 1 ? "" : "s"}: ${example}`);
}
