/**
 * The full-screen terminal: alternate screen buffer, hidden cursor, raw keys, and frames written
 * line by line (only the lines that changed). Restoring puts the terminal back as it was.
 *
 * @module
 */

/** Where the screen writes and reads (Deno's stdout and stdin by default). */
export interface ScreenStreams {
  /** Output: must be a terminal. */
  output: { writeSync(bytes: Uint8Array): number };
  /** Input, put in raw mode when it is a terminal; null for none. */
  input: { isTerminal(): boolean; setRaw(mode: boolean): void } | null;
}

/** Options of {@linkcode openScreen}. */
export interface OpenScreenOptions {
  /**
   * Streams to use.
   *
   * @default {{ output: Deno.stdout, input: Deno.stdin }}
   */
  streams?: ScreenStreams | undefined;
}

/** An open full-screen view. */
export interface Screen {
  /** True when keys arrive byte by byte (stdin is a terminal in raw mode). */
  readonly raw: boolean;
  /** Writes a frame; only changed lines are rewritten unless `full` is set (after a resize). */
  show(lines: readonly string[], full?: boolean): void;
  /** Leaves raw mode and the alternate screen and shows the cursor again (safe to call twice). */
  restore(): void;
}

/** Enter the alternate screen, hide the cursor, clear. */
export const ENTER = "\x1b[?1049h\x1b[?25l\x1b[2J";
/** Reset colours, show the cursor, leave the alternate screen. */
export const LEAVE = "\x1b[0m\x1b[?25h\x1b[?1049l";

function writeAll(output: ScreenStreams["output"], text: string): void {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += output.writeSync(bytes.subarray(offset));
}

/**
 * The bytes that turn one frame into the next: each changed line is addressed by row, erased and
 * written (so a line as wide as the terminal never wraps or scrolls), and rows the new frame does
 * not have are erased.
 *
 * @param previous The frame on screen (empty after a clear).
 * @param next The frame to show.
 * @returns Escape sequences and text; empty when nothing changed.
 * @example
 * ```ts
 * import { frameUpdate } from "./_screen.ts";
 * frameUpdate(["a", "b"], ["a", "c"]); // "\x1b[2;1H\x1b[2Kc"
 * ```
 */
export function frameUpdate(previous: readonly string[], next: readonly string[]): string {
  let out = "";
  for (let row = 0; row < Math.max(previous.length, next.length); row++) {
    const line = next[row];
    if (line === previous[row]) continue;
    out += `\x1b[${row + 1};1H\x1b[2K${line ?? ""}`;
  }
  return out;
}

/**
 * Opens the full-screen view: alternate screen buffer, hidden cursor, raw mode on stdin when it is
 * a terminal (so Ctrl+C and Ctrl+R arrive as keys).
 *
 * @param options The streams.
 * @returns The screen; call `restore()` before exiting.
 */
export function openScreen(options: OpenScreenOptions = {}): Screen {
  const { output, input } = options.streams ?? { output: Deno.stdout, input: Deno.stdin };
  let raw = false;
  if (input?.isTerminal()) {
    input.setRaw(true);
    raw = true;
  }
  writeAll(output, ENTER);
  let shown: readonly string[] = [];
  let open = true;
  return {
    raw,
    show(lines, full = false) {
      if (!open) return;
      if (full) shown = [];
      const update = frameUpdate(shown, lines);
      if (update) writeAll(output, (full ? "\x1b[2J" : "") + update);
      shown = [...lines];
    },
    restore() {
      if (!open) return;
      open = false;
      try {
        writeAll(output, LEAVE);
      } finally {
        if (raw) input?.setRaw(false);
      }
    },
  };
}
