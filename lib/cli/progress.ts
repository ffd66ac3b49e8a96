/**
 * A one-line progress bar on a terminal (nothing when the stream is not a terminal).
 *
 * @module
 */

/** Options for `progressBar`. */
export interface ProgressOptions {
  /** Where to draw. @default Deno.stderr */
  stream?: { writeSync(p: Uint8Array): number; isTerminal(): boolean };
  /** Bar width in cells. @default 30 */
  width?: number | undefined;
}

/** A progress bar. */
export interface ProgressBar {
  /** Redraws with `done` of `total` and a short status text. */
  update(done: number, total: number, text?: string): void;
  /** Clears the line. */
  done(): void;
}

/**
 * Creates a progress bar that draws only on a terminal, at most every 50 ms.
 *
 * @param options Stream and width.
 * @returns The bar.
 */
export function progressBar(options: ProgressOptions = {}): ProgressBar {
  const stream = options.stream ?? Deno.stderr;
  const width = options.width ?? 30;
  const enabled = stream.isTerminal();
  const enc = new TextEncoder();
  let last = 0;
  return {
    update(done, total, text = "") {
      if (!enabled) return;
      const now = performance.now();
      if (now - last < 50 && done < total) return;
      last = now;
      const filled = total ? Math.round((done / total) * width) : 0;
      const bar = "█".repeat(filled) + "░".repeat(width - filled);
      stream.writeSync(enc.encode(`\r\x1b[2K${bar} ${done}/${total} ${text}`));
    },
    done() {
      if (enabled) stream.writeSync(enc.encode("\r\x1b[2K"));
    },
  };
}
