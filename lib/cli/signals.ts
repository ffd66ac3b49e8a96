/**
 * Ctrl+C for long commands: the first SIGINT or SIGTERM aborts a signal (stop sending, keep what
 * was answered); a second one exits at once with status 130.
 *
 * One Ctrl+C in a terminal can arrive twice: the terminal sends SIGINT to the whole foreground
 * process group, and `deno task` forwards the SIGINT it received to its child as well. A signal
 * that arrives within `repeatWindowMs` of the first is taken as that same Ctrl+C, not a second one.
 *
 * @module
 */

/** A signal that aborts on Ctrl+C, and the listeners to remove when done. */
export interface Interrupt extends Disposable {
  /** Aborts at the first SIGINT or SIGTERM. */
  signal: AbortSignal;
}

/** Options for `interruptOnSignals`. */
export interface InterruptOptions {
  /**
   * A signal within this many ms of the first is the same Ctrl+C delivered twice (terminal and
   * `deno task`), not a request to quit at once.
   * @default 500
   */
  repeatWindowMs?: number;
  /** Exits the process (tests replace it). @default Deno.exit */
  exit?: (code: number) => void;
  /** Prints the notice. @default console.error */
  log?: (message: string) => void;
  /** Monotonic clock in ms. @default performance.now */
  now?: () => number;
}

/** The listener part of `interruptOnSignals`, without the process signal plumbing (tests). */
export interface InterruptHandler {
  /** The signal that aborts at the first interrupt. */
  signal: AbortSignal;
  /** Call once per SIGINT or SIGTERM received. */
  onSignal(): void;
}

/**
 * The interrupt logic: the first call aborts, a call within `repeatWindowMs` of it is ignored,
 * a later one exits with 130.
 *
 * @param message What the command does on the first interrupt.
 * @param options Window, exit, log and clock.
 * @returns The signal and the listener.
 */
export function interruptHandler(
  message: string,
  options: InterruptOptions = {},
): InterruptHandler {
  const window = options.repeatWindowMs ?? 500;
  const exit = options.exit ?? ((code: number) => Deno.exit(code));
  const log = options.log ?? ((line: string) => console.error(line));
  const now = options.now ?? (() => performance.now());
  const controller = new AbortController();
  let first: number | null = null;
  return {
    signal: controller.signal,
    onSignal() {
      const at = now();
      if (first === null) {
        first = at;
        log(`\ninterrupted: ${message} (Ctrl+C again to quit now)`);
        controller.abort(new DOMException("Interrupted", "AbortError"));
      } else if (at - first >= window) {
        exit(130);
      }
    },
  };
}

/**
 * Listens for SIGINT and SIGTERM until disposed.
 *
 * @param message What the command does on the first interrupt (printed on stderr).
 * @param options Window, exit, log and clock.
 * @returns The interrupt; dispose it (`using`) to remove the listeners.
 */
export function interruptOnSignals(message: string, options: InterruptOptions = {}): Interrupt {
  const handler = interruptHandler(message, options);
  const onSignal = (): void => handler.onSignal();
  const names: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const name of names) Deno.addSignalListener(name, onSignal);
  return {
    signal: handler.signal,
    [Symbol.dispose]() {
      for (const name of names) Deno.removeSignalListener(name, onSignal);
    },
  };
}
