/**
 * Private: how a question set's messages quote what a file holds — never more than 60 characters
 * of it, so a bad megabyte-long line gives a one-line message.
 *
 * @module
 */

/** The most characters of a file's content a message quotes. */
export const SHOWN_CHARS = 60;

/**
 * Text cut to at most `max` characters (the last one an ellipsis when it was cut).
 *
 * @param text The text.
 * @param max The most characters kept.
 * @returns The text, or its start and `…`.
 */
export function cut(text: string, max: number = SHOWN_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Text in double quotes, cut to at most 60 characters.
 *
 * @param text The text.
 * @returns e.g. `"sales"`.
 */
export function quoted(text: string): string {
  return `"${cut(text)}"`;
}

/**
 * A value as a message shows it: JSON cut at 60 characters; a number JSON cannot hold (NaN,
 * Infinity) as itself rather than JSON's `null`.
 *
 * @param value The value.
 * @returns Its text.
 */
export function shown(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "bigint") return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return cut(text);
}
