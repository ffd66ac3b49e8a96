/**
 * A small concurrency pool.
 *
 * @module
 */

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight. Stops taking new items once
 * `signal` aborts; calls already started finish.
 *
 * @param items Items to process, in order.
 * @param concurrency Maximum calls in flight (≥ 1).
 * @param fn Work per item.
 * @param signal Stops handing out new items when aborted.
 * @returns Resolves when every started call has settled; rejects with the first error thrown.
 */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  async function worker(): Promise<void> {
    while (!failure && !signal?.aborted && next < items.length) {
      const index = next++;
      try {
        await fn(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  const n = Math.max(1, Math.min(concurrency, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure) throw (failure as { error: unknown }).error;
}
