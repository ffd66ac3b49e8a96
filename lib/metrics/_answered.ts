/**
 * Private: when a decision counts as answered.
 *
 * @module
 */

/** A decision is answered when its `error` is null or absent. */
export function isAnswered(decision: { error?: unknown }): boolean {
  return decision.error === null || decision.error === undefined;
}
