/** One turn of the event loop: timers, sockets and other requests run before the caller goes on. */
export const eventLoopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `items.map(fn)`, with a turn of the event loop after every `slice` items: a long batch of CPU-bound work
 * (validating 1000 six-step cascades takes some 60 ms) holds the loop for a slice at a time, not for all of it.
 */
export async function mapInSlices<T, R>(
  items: readonly T[],
  slice: number,
  fn: (item: T, index: number) => R,
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % slice === 0) await eventLoopTurn();
    results.push(fn(items[i]!, i));
  }
  return results;
}
