/**
 * A small concurrency pool.
 *
 * @module
 */

/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight. Items are taken one at a time
 * as calls finish, so an (async) iterable is read no faster than it is worked through. Stops
 * taking new items once `signal` aborts; calls already started finish.
 *
 * @param items Items to process, in order: an array or any (async) iterable, read once.
 * @param concurrency Maximum calls in flight (≥ 1).
 * @param fn Work per item, with its position among the items.
 * @param signal Stops handing out new items when aborted.
 * @returns Resolves when every started call has settled; rejects with the first error thrown (by
 *   `fn` or by the iterable).
 */
export async function pool<T>(
  items: Iterable<T> | AsyncIterable<T>,
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const iterator: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in items
    ? items[Symbol.asyncIterator]()
    : items[Symbol.iterator]();
  let next = 0;
  let exhausted = false;
  let failure: { error: unknown } | null = null;
  // One item handed out at a time: an async iterator's `next` calls never overlap.
  let taking: Promise<unknown> = Promise.resolve();
  const take = (): Promise<IteratorResult<T>> => {
    const result = taking.then(() => iterator.next());
    taking = result.catch(() => {});
    return result;
  };
  async function worker(): Promise<void> {
    while (!failure && !signal?.aborted && !exhausted) {
      let result: IteratorResult<T>;
      try {
        result = await take();
      } catch (error) {
        failure ??= { error };
        return;
      }
      if (result.done) {
        exhausted = true;
        return;
      }
      if (failure || signal?.aborted) return;
      const index = next++;
      try {
        await fn(result.value, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  const n = Math.max(1, Array.isArray(items) ? Math.min(concurrency, items.length) : concurrency);
  try {
    await Promise.all(Array.from({ length: n }, worker));
  } finally {
    if (!exhausted) await iterator.return?.();
  }
  if (failure) throw (failure as { error: unknown }).error;
}
