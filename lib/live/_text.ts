/**
 * Terminal text: the width a string takes on screen, clipping to a width (aware of the SGR colour
 * sequences the view adds), and cleaning text that came from outside (a server's error message, a
 * case's state) so it cannot move the cursor or change the terminal.
 *
 * @module
 */

/** Matches one SGR (colour) escape sequence. */
// deno-lint-ignore no-control-regex -- matching the escape character is the point
const SGR = /\x1b\[[0-9;]*m/y;

/** Resets every SGR attribute. */
export const RESET = "\x1b[0m";

/**
 * The number of terminal cells a code point takes: 0 for combining marks and zero-width
 * characters, 2 for East Asian wide and emoji code points, 1 otherwise.
 *
 * @param codePoint A Unicode code point.
 * @returns 0, 1 or 2.
 */
export function cellWidth(codePoint: number): number {
  if (
    (codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0x20d0 && codePoint <= 0x20ff)
  ) return 0;
  if (
    (codePoint >= 0x1100 && codePoint <= 0x115f) || (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) || (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) || (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1f64f) ||
    (codePoint >= 0x1f900 && codePoint <= 0x1f9ff) || (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  ) return 2;
  return 1;
}

/**
 * The number of terminal cells a string takes, not counting SGR colour sequences.
 *
 * @param text The text (already cleaned of other control characters).
 * @returns Its width in cells.
 * @example
 * ```ts
 * import { displayWidth } from "./_text.ts";
 * displayWidth("\x1b[1mok\x1b[0m █"); // 4
 * ```
 */
export function displayWidth(text: string): number {
  let width = 0;
  let i = 0;
  while (i < text.length) {
    SGR.lastIndex = i;
    const match = SGR.exec(text);
    if (match) {
      i += match[0].length;
      continue;
    }
    const codePoint = text.codePointAt(i) as number;
    width += cellWidth(codePoint);
    i += codePoint > 0xffff ? 2 : 1;
  }
  return width;
}

/**
 * Clips a string to at most `width` cells, ending a clipped string with `…` and closing any colour
 * it opened, so no line of the view is wider than the terminal.
 *
 * @param text The text (SGR sequences allowed, other control characters cleaned).
 * @param width The most cells the result may take (0 gives an empty string).
 * @returns The text, clipped when wider than `width`.
 * @example
 * ```ts
 * import { clip } from "./_text.ts";
 * clip("accuracy 61.0%", 8); // "accurac…"
 * ```
 */
export function clip(text: string, width: number): string {
  if (width <= 0) return "";
  if (displayWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  let styled = false;
  let i = 0;
  while (i < text.length) {
    SGR.lastIndex = i;
    const match = SGR.exec(text);
    if (match) {
      out += match[0];
      styled = true;
      i += match[0].length;
      continue;
    }
    const codePoint = text.codePointAt(i) as number;
    const w = cellWidth(codePoint);
    if (used + w > width - 1) break;
    out += String.fromCodePoint(codePoint);
    used += w;
    i += codePoint > 0xffff ? 2 : 1;
  }
  return `${out}…${styled ? RESET : ""}`;
}

/**
 * Pads a string with spaces to exactly `width` cells, clipping it first when it is wider.
 *
 * @param text The text.
 * @param width The width in cells.
 * @returns A string that takes exactly `width` cells.
 */
export function fit(text: string, width: number): string {
  const clipped = clip(text, width);
  return clipped + " ".repeat(Math.max(0, width - displayWidth(clipped)));
}

/**
 * Makes outside text safe to print: control characters (escape included), line and paragraph
 * separators become spaces, so a server's message or a case's state cannot drive the terminal.
 *
 * @param text Text from a server, a case or a file.
 * @returns The text on one line with no control characters.
 * @example
 * ```ts
 * import { clean } from "./_text.ts";
 * clean("bad\x1b[2Jthing\nhere"); // "bad [2Jthing here"
 * ```
 */
export function clean(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029\u0085]/gu, " ");
}
