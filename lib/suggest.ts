/**
 * "Did you mean …?": the known name closest to a mistyped one, for flags and workflow keys.
 *
 * @module
 */

/** Edit distance with adjacent transpositions (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i < rows; i++) {
    const row = d[i] as number[];
    const above = d[i - 1] as number[];
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1);
      best = Math.min(best, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The candidate a mistyped name most likely meant: the only candidate it is a prefix of (at least
 * three characters typed), else the nearest by edit distance when that is at most 1 for names up
 * to 4 characters, 2 up to 8, and 3 beyond (case-insensitive; ties go to the first listed).
 *
 * @param name What was typed, e.g. `paralel`.
 * @param candidates The names that exist.
 * @returns The suggestion, or undefined when nothing is close.
 * @example
 * ```ts
 * import { closest } from "./suggest.ts";
 * closest("paralel", ["parallel", "limit"]); // "parallel"
 * closest("xyz", ["parallel", "limit"]); // undefined
 * ```
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const typed = name.toLowerCase();
  if (typed.length >= 3) {
    const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(typed));
    if (prefixed.length === 1) return prefixed[0];
  }
  const limit = typed.length <= 4 ? 1 : typed.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(typed, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
