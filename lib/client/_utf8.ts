/**
 * UTF-8 byte counting and clipping for wire limits that are written in bytes.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * The UTF-8 length of a string in bytes.
 *
 * @param text The text.
 * @returns Its UTF-8 byte length.
 */
export function utf8Length(text: string): number {
  // ASCII-only text (the common case) needs no encoding.
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : encoder.encode(text).length;
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits `maxBytes`, never splitting a code point
 * (a surrogate pair counts as one 4-byte code point).
 *
 * @param text The text.
 * @param maxBytes The byte budget (≥ 0).
 * @returns The clipped text (the text itself when it fits).
 */
export function clipUtf8(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const cp = char.codePointAt(0) as number;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}
