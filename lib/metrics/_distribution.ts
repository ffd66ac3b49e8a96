/**
 * Private helpers over predicted and gold distributions (keyed in option order), shared by the
 * calibration, ordinal, selective-prediction, temperature and stability analyses.
 *
 * @module
 */

/** A distribution keyed in option order (level order for score questions). */
export type Distribution = Readonly<Record<string, number>>;

/** The probability of `key`, 0 when the distribution leaves it out. */
export function probabilityOf(distribution: Distribution, key: string): number {
  return Object.hasOwn(distribution, key) ? distribution[key] as number : 0;
}

/**
 * The top answer of a distribution: the key with the highest probability, the one listed first
 * on a tie (the rule `argmax` scores with). Null for an empty distribution.
 */
export function topOf(distribution: Distribution): { key: string; p: number } | null {
  let best: { key: string; p: number } | null = null;
  for (const key in distribution) {
    const p = distribution[key] as number;
    if (best === null || p > best.p) best = { key, p };
  }
  return best;
}

/** The expected level Σ i·p(i) of a score distribution keyed `"0"`, `"1"`, …. */
export function expectedLevel(distribution: Distribution): number {
  let sum = 0;
  for (const key in distribution) sum += Number(key) * (distribution[key] as number);
  return sum;
}

/** The key identifying a decision's question across workflows: `workflow/question`. */
export function questionKey(
  decision: { workflow?: string | undefined; question?: string | undefined },
): string {
  const question = decision.question ?? "";
  return decision.workflow === undefined ? question : `${decision.workflow}/${question}`;
}

/** Groups items by a key, in order of first appearance. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
