import { describe, expect, it } from 'vitest';
import { runPool } from '../../src/internal/run-pool.js';

/** A task whose items finish when the test says so. */
function gated<T>() {
  const started: T[] = [];
  const gates = new Map<T, { resolve: () => void; reject: (error: Error) => void }>();
  const task = (item: T) =>
    new Promise<T>((resolve, reject) => {
      started.push(item);
      gates.set(item, { resolve: () => resolve(item), reject });
    });
  const settle = async (item: T, error?: Error) => {
    await until(() => gates.has(item));
    const gate = gates.get(item);
    if (error) gate?.reject(error);
    else gate?.resolve();
  };
  return { started, task, settle };
}

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

describe('runPool', () => {
  it('runs at most `limit` at once and returns results in input order', async () => {
    const { started, task, settle } = gated<number>();
    const run = runPool([1, 2, 3, 4], 2, task);
    await until(() => started.length === 2);
    expect(started).toEqual([1, 2]);
    await settle(2);
    await until(() => started.length === 3);
    expect(started).toEqual([1, 2, 3]);
    for (const item of [3, 1, 4]) await settle(item);
    await expect(run).resolves.toEqual([1, 2, 3, 4]);
  });

  it('after a failure starts nothing new, lets the running items finish, then throws the first failure', async () => {
    const { started, task, settle } = gated<number>();
    let settled = false;
    const run = runPool([1, 2, 3, 4], 2, task).finally(() => {
      settled = true;
    });
    await settle(1, new Error('first'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false); // item 2 still runs
    await settle(2, new Error('second'));
    await expect(run).rejects.toThrow('first');
    expect(started).toEqual([1, 2]);
  });

  it('reads a stream of items only as there is room, and closes it after a failure', async () => {
    const { started, task, settle } = gated<number>();
    let read = 0;
    let closed = false;
    async function* source() {
      try {
        for (let i = 1; i <= 5; i++) {
          read = i;
          yield i;
        }
      } finally {
        closed = true;
      }
    }
    const run = runPool(source(), 2, task);
    await until(() => started.length === 2);
    expect(read).toBe(2);
    await settle(1, new Error('first'));
    await settle(2);
    await expect(run).rejects.toThrow('first');
    expect(read).toBe(2);
    expect(closed).toBe(true);
  });

  it('tells the items still running that the pool stopped, so one waiting for a place gives up', async () => {
    const { task, settle } = gated<number>();
    const stops: AbortSignal[] = [];
    const run = runPool([1, 2], 2, (item, _index, stop) => {
      stops.push(stop);
      return task(item);
    });
    await settle(1, new Error('first'));
    await until(() => stops[1]?.aborted === true);
    await settle(2);
    await expect(run).rejects.toThrow('first');
  });

  it('returns nothing for no items', async () => {
    await expect(runPool([], 3, async () => 1)).resolves.toEqual([]);
  });
});
