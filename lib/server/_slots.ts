/**
 * The reference server's decision slots: at most `total` requests are processed at once and the
 * rest wait in arrival order, as llama-server's deferred requests do.
 *
 * @module
 */

/** A fixed number of slots with a first-come, first-served queue. */
export class Slots {
  /** Slots in all, or undefined when unlimited (nothing ever waits). */
  readonly total: number | undefined;
  #busy = 0;
  #queue: (() => void)[] = [];

  /**
   * Creates the slots.
   *
   * @param total Slots in all (a positive integer), or undefined for no limit.
   */
  constructor(total: number | undefined) {
    this.total = total;
  }

  /** Requests holding a slot now. */
  get busy(): number {
    return this.#busy;
  }

  /** Requests waiting for a slot now. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Takes a free slot when there is one.
   *
   * @returns True when a slot was taken; false when every slot is busy (then `wait`).
   */
  tryTake(): boolean {
    if (this.total !== undefined && this.#busy >= this.total) return false;
    this.#busy++;
    return true;
  }

  /**
   * Waits in line for a slot (after `tryTake` returned false).
   *
   * @param signals Leaving the line when any of them aborts (the server closes).
   * @returns True once the slot is taken, false when the request left the line without one.
   */
  wait(...signals: AbortSignal[]): Promise<boolean> {
    if (this.tryTake()) return Promise.resolve(true);
    if (signals.some((s) => s.aborted)) return Promise.resolve(false);
    return new Promise((resolve) => {
      const leave = (): void => {
        const at = this.#queue.indexOf(take);
        if (at >= 0) this.#queue.splice(at, 1);
        for (const s of signals) s.removeEventListener("abort", leave);
        resolve(false);
      };
      const take = (): void => {
        for (const s of signals) s.removeEventListener("abort", leave);
        this.#busy++;
        resolve(true);
      };
      this.#queue.push(take);
      for (const s of signals) s.addEventListener("abort", leave, { once: true });
    });
  }

  /** Gives a slot back; the first request in line takes it. */
  release(): void {
    this.#busy--;
    this.#queue.shift()?.();
  }
}
