/**
 * Ctrl+C for long commands: the first SIGINT or SIGTERM aborts a signal (stop sending, keep what
 * was answered); a second one exits at once with status 130.
 *
 * @module
 */

/** A signal that aborts on Ctrl+C, and the listeners to remove when done. */
export interface Interrupt extends Disposable {
  /** Aborts at the first SIGINT or SIGTERM. */
  signal: AbortSignal;
}

/**
 * Listens for SIGINT and SIGTERM until disposed.
 *
 * @param message What the command does on the first interrupt (printed on stderr).
 * @returns The interrupt; dispose it (`using`) to remove the listeners.
 */
export function interruptOnSignals(message: string): Interrupt {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts > 1) Deno.exit(130);
    console.error(`\ninterrupted: ${message} (Ctrl+C again to quit now)`);
    controller.abort(new DOMException("Interrupted", "AbortError"));
  };
  const names: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const name of names) Deno.addSignalListener(name, onSignal);
  return {
    signal: controller.signal,
    [Symbol.dispose]() {
      for (const name of names) Deno.removeSignalListener(name, onSignal);
    },
  };
}
