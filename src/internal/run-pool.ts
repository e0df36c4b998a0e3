/**
 * Run `task` over `items`, at most `workers` at a time; results in input order. After a failure no new item
 * starts, but those running finish (their jobs are paid for and their state is recorded), then the first
 * failure is thrown.
 * @internal
 */
export async function runPool<T, R>(items: readonly T[], workers: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const position = next++;
      try {
        results[position] = await task(items[position] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
