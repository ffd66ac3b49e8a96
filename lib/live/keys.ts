/**
 * Keys the monitor answers in raw mode: Ctrl+R resets the session, Ctrl+C (or `q`, or Ctrl+D)
 * quits.
 *
 * @module
 */

/** What a key asks the monitor to do. */
export type KeyAction = "reset" | "quit";

/**
 * The actions in a chunk of bytes read from a terminal in raw mode, in order. Other bytes
 * (escape sequences such as arrows included) are ignored.
 *
 * @param bytes Bytes read from stdin.
 * @returns The actions, one per recognised key.
 * @example
 * ```ts
 * import { keyActions } from "./keys.ts";
 * keyActions(new Uint8Array([0x12, 0x03])); // ["reset", "quit"]
 * ```
 */
export function keyActions(bytes: Uint8Array): KeyAction[] {
  const actions: KeyAction[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (byte === 0x1b) {
      // Skip an escape sequence: ESC [ … final byte, or ESC and one more byte.
      if (bytes[i + 1] === 0x5b) {
        i += 2;
        while (
          i < bytes.length && !((bytes[i] as number) >= 0x40 && (bytes[i] as number) <= 0x7e)
        ) i++;
      } else i++;
      continue;
    }
    if (byte === 0x12) actions.push("reset");
    else if (byte === 0x03 || byte === 0x04 || byte === 0x71) actions.push("quit");
  }
  return actions;
}
