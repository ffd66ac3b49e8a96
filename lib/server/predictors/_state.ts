/**
 * Private: how a predictor that knows its cases finds a request's case — by its state, compared
 * as canonical JSON (key order does not matter; a state sent as JSON text is parsed first).
 *
 * @module
 */

/**
 * The state as a value: a state sent as JSON text is parsed, anything else is kept.
 *
 * @param state The request's state.
 * @returns The parsed state.
 */
export function parseStateText(state: unknown): unknown {
  if (typeof state !== "string") return state;
  try {
    return JSON.parse(state);
  } catch {
    return state;
  }
}

/**
 * JSON text with object keys sorted at every level, so equal values give equal text.
 *
 * @param value Any JSON value.
 * @returns The canonical text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
}

/**
 * The key a request's state is looked up by.
 *
 * @param state The request's state (a value, or its JSON text).
 * @returns The canonical JSON of the parsed state.
 */
export function stateKey(state: unknown): string {
  return canonicalJson(parseStateText(state));
}
