/**
 * Progress of a long run. On a terminal: one line redrawn in place, cut to the terminal's width,
 * with the count, rate and ETA, at most ten times a second. Elsewhere (a CI log, a pipe): one
 * plain line every tenth of the work or every ten seconds, so the log shows life.
 *
 * @module
 */

/** Where progress is written. */
export interface ProgressStream {
  /** Writes bytes synchronously. */
  writeSync(p: Uint8Array): number;
  /** True when the stream is a terminal. */
  isTerminal(): boolean;
}

/** Options for `progressBar`. */
export interface ProgressOptions {
  /** Where to draw. @default Deno.stderr */
  stream?: ProgressStream | undefined;
  /** The terminal's width in columns, read at every redraw. @default Deno.consoleSize().columns, 80 when unknown */
  columns?: (() => number) | undefined;
  /** Clock in ms. @default performance.now */
  now?: (() => number) | undefined;
  /** Shortest time between two redraws on a terminal, in ms. @default 100 */
  redrawMs?: number | undefined;
  /** Without a terminal, the longest time between two progress lines, in ms. @default 10000 */
  plainEveryMs?: number | undefined;
  /** Without a terminal, the share of the work between two progress lines. @default 0.1 */
  plainEveryShare?: number | undefined;
  /** What is counted. @default "cases" */
  unit?: string | undefined;
}

/** A progress bar. */
export interface ProgressBar {
  /** Reports `done` of `total` and a short status text (redrawn when it is time). */
  update(done: number, total: number, text?: string): void;
  /** Clears the line on a terminal. */
  done(): void;
}

const BAR_MAX = 24;
const BAR_MIN = 6;

function defaultColumns(): number {
  try {
    return Deno.consoleSize().columns;
  } catch {
    return 80;
  }
}

/**
 * A duration for an ETA: `42 s`, `3:07`, `1:02:07`.
 *
 * @param seconds Seconds (rounded up).
 * @returns The text.
 */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
}

function formatRate(perSecond: number): string {
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

/**
 * The progress line for a given width: the parts that fit, most important first (count, then
 * percentage, rate, ETA, the status text), with a bar in the room left over. Never longer than
 * `width` characters.
 *
 * @param state Counts, rate (per second, or null while unknown) and status text.
 * @param width Characters available.
 * @returns The line.
 */
export function progressLine(
  state: { done: number; total: number; rate: number | null; text: string },
  width: number,
): string {
  const { done, total, rate, text } = state;
  const parts = [`${done}/${total}`];
  const optional: string[] = [];
  if (total > 0) optional.push(`${Math.floor((done / total) * 100)}%`);
  if (rate !== null && rate > 0) {
    optional.push(`${formatRate(rate)}/s`);
    if (done < total) optional.push(`ETA ${formatEta((total - done) / rate)}`);
  }
  if (text) optional.push(text);
  let line = parts.join(" ");
  for (const part of optional) {
    if ([...line].length + 1 + [...part].length > width) break;
    line += ` ${part}`;
  }
  if ([...line].length > width) return [...line].slice(0, Math.max(0, width)).join("");
  const room = width - [...line].length - 1;
  if (room >= BAR_MIN && total > 0) {
    const cells = Math.min(BAR_MAX, room);
    const filled = Math.round((done / total) * cells);
    line = `${"█".repeat(filled)}${"░".repeat(cells - filled)} ${line}`;
  }
  return line;
}

/**
 * Creates a progress reporter. On a terminal it redraws one line in place (cut to the width the
 * terminal has now, one column spare so it never wraps), at most once per `redrawMs` and always
 * for the last item. Without a terminal it writes a plain line each time another
 * `plainEveryShare` of the work is done or `plainEveryMs` have passed, and at the end.
 *
 * @param options Stream, width, clock and pacing.
 * @returns The bar.
 * @example
 * ```ts
 * import { progressBar } from "./progress.ts";
 * const lines: string[] = [];
 * const bar = progressBar({
 *   stream: {
 *     isTerminal: () => false,
 *     writeSync: (p) => lines.push(new TextDecoder().decode(p)) && p.length,
 *   },
 * });
 * for (let i = 1; i <= 20; i++) bar.update(i, 20);
 * bar.done();
 * lines.length; // 10: one line per tenth of the work
 * ```
 */
export function progressBar(options: ProgressOptions = {}): ProgressBar {
  const stream = options.stream ?? Deno.stderr;
  const columns = options.columns ?? defaultColumns;
  const now = options.now ?? (() => performance.now());
  const redrawMs = options.redrawMs ?? 100;
  const plainEveryMs = options.plainEveryMs ?? 10_000;
  const plainEveryShare = options.plainEveryShare ?? 0.1;
  const unit = options.unit ?? "cases";
  const steps = Math.max(1, Math.round(1 / plainEveryShare));
  const terminal = stream.isTerminal();
  const enc = new TextEncoder();
  let first: { at: number; done: number } | null = null;
  // A terminal draws at once; a log's first line waits for a tenth of the work or `plainEveryMs`.
  let lastDraw = terminal ? -Infinity : now();
  let lastShare = 0;
  let drawn = false;
  let previous: { done: number; total: number } | null = null;
  const rateAt = (at: number, done: number): number | null => {
    if (first === null || at - first.at < 500 || done <= first.done) return null;
    return (done - first.done) / ((at - first.at) / 1000);
  };
  return {
    update(done, total, text = "") {
      const at = now();
      if (previous !== null && (done < previous.done || total !== previous.total)) {
        // A new run on the same bar (the next engine of a comparison): start counting again.
        first = null;
        lastShare = 0;
        if (!terminal) lastDraw = at;
      }
      previous = { done, total };
      first ??= { at, done };
      const rate = rateAt(at, done);
      if (terminal) {
        if (at - lastDraw < redrawMs && done < total) return;
        lastDraw = at;
        const width = Math.max(10, columns() - 1);
        const line = progressLine({ done, total, rate, text }, width);
        stream.writeSync(enc.encode(`\r\x1b[2K${line}`));
        drawn = true;
        return;
      }
      const share = total > 0 ? Math.floor((done * steps) / total) : 0;
      if (share <= lastShare && at - lastDraw < plainEveryMs && done < total) return;
      if (done >= total && lastShare === Infinity) return;
      lastShare = done >= total ? Infinity : Math.max(share, lastShare);
      lastDraw = at;
      const percent = total > 0 ? ` (${Math.floor((done / total) * 100)}%)` : "";
      const pace = rate !== null && rate > 0
        ? `, ${formatRate(rate)} ${unit}/s${
          done < total ? `, ETA ${formatEta((total - done) / rate)}` : ""
        }`
        : "";
      stream.writeSync(
        enc.encode(
          `progress ${done}/${total} ${unit}${percent}${pace}${text ? `, ${text}` : ""}\n`,
        ),
      );
    },
    done() {
      if (terminal && drawn) stream.writeSync(enc.encode("\r\x1b[2K"));
      drawn = false;
    },
  };
}
