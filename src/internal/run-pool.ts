// Not p-map: with stopOnError false it starts every item anyway, and with true it rejects while running jobs (paid
// for) are still going; this one stops starting items on a failure and waits for those running, then throws.

/**
 * Run `task` over `items`, at most `width` at a time (work in hand, not jobs: the limiter bounds those), reading
 * an item only when there is room; results in input order. After a failure `stop` fires and no item starts, but
 * those running finish (their jobs are paid for), then the first failure is thrown.
 * @internal
 */
export async function runPool<T, R>(
  items: Iterable<T> | AsyncIterable<T>,
  width: number,
  task: (item: T, index: number, stop: AbortSignal) => Promise<R>,
): Promise<R[]> {
  const source = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  const results: R[] = [];
  const stop = new AbortController();
  let read = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!stop.signal.aborted) {
      const index = read++;
      try {
        const next = await source.next();
        if (next.done) return;
        results[index] = await task(next.value, index, stop.signal);
      } catch (error) {
        failure ??= { error };
        stop.abort();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, width) }, worker));
  } finally {
    if (failure) await source.return?.();
  }
  if (failure) throw failure.error;
  return results;
}
