/**
 * Private: when a decision counts as answered.
 *
 * @module
 */

/** A decision is answered when its `error` is null or absent. */
export function isAnswered(decision: { error?: unknown }): boolean {
  return decision.error === null || decision.error === undefined;
}

/**
 * A decision is unlabelled when it has no gold (`gold` null) or no correctness (`correct` null):
 * a user question set's row with a blank label, asked and recorded but in no metric.
 */
export function isUnlabelled(decision: { gold?: unknown; correct?: unknown }): boolean {
  return decision.gold === null || decision.correct === null;
}
