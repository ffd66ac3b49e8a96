/**
 * Request deadlines kept by one sweep instead of a timer and an abort listener per request: the
 * requests in flight are tracked with their deadline, one timer fires at the earliest one and
 * aborts whatever is due, and each caller signal gets one listener for all its requests. The
 * timer is cleared whenever nothing is in flight, so it never keeps a process (or a test) alive.
 *
 * @module
 */

/** A request in flight. */
export interface Tracked {
  /** Aborts the request (its signal is the one given to `fetch`). */
  readonly controller: AbortController;
  /** When the request is due, in `performance.now()` ms. */
  readonly deadline: number;
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
  /** Set when the sweep aborted the request because its deadline passed. */
  timedOut: boolean;
}

const inFlight = new Set<Tracked>();
let timer: ReturnType<typeof setTimeout> | undefined;
let timerAt = Infinity;
// One listener per caller signal, aborting that signal's requests in flight.
const bySignal = new WeakMap<AbortSignal, Set<Tracked>>();

function arm(at: number): void {
  if (timer !== undefined && timerAt <= at) return;
  if (timer !== undefined) clearTimeout(timer);
  timerAt = at;
  timer = setTimeout(sweep, Math.max(0, at - performance.now()));
}

function sweep(): void {
  timer = undefined;
  timerAt = Infinity;
  const now = performance.now();
  let next = Infinity;
  for (const entry of inFlight) {
    if (entry.deadline <= now) {
      entry.timedOut = true;
      release(entry);
      entry.controller.abort(new DOMException("Request timed out", "TimeoutError"));
    } else if (entry.deadline < next) next = entry.deadline;
  }
  if (next < Infinity) arm(next);
}

/**
 * Tracks a request until `release`: aborted when `timeoutMs` passes or when `signal` aborts.
 *
 * @param timeoutMs Milliseconds the request may take.
 * @param signal The caller's signal.
 * @returns The tracked request; give `controller.signal` to `fetch`.
 */
export function track(timeoutMs: number, signal: AbortSignal | undefined): Tracked {
  const entry: Tracked = {
    controller: new AbortController(),
    deadline: performance.now() + timeoutMs,
    signal,
    timedOut: false,
  };
  inFlight.add(entry);
  if (signal !== undefined) {
    let set = bySignal.get(signal);
    if (set === undefined) {
      const mine = new Set<Tracked>();
      set = mine;
      bySignal.set(signal, mine);
      signal.addEventListener("abort", () => {
        for (const e of [...mine]) {
          release(e);
          e.controller.abort(signal.reason);
        }
      }, { once: true });
    }
    set.add(entry);
  }
  arm(entry.deadline);
  return entry;
}

/**
 * Stops tracking a request (it answered, failed or was aborted).
 *
 * @param entry The tracked request.
 */
export function release(entry: Tracked): void {
  if (!inFlight.delete(entry)) return;
  if (entry.signal !== undefined) bySignal.get(entry.signal)?.delete(entry);
  if (inFlight.size === 0 && timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
    timerAt = Infinity;
  }
}

/**
 * How many requests are tracked now (for tests).
 *
 * @returns The count.
 */
export function trackedCount(): number {
  return inFlight.size;
}
