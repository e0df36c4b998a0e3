/**
 * internal/abort-listener.ts: every wait on a caller's signal shares that signal's ONE 'abort' listener, so 1,000
 * jobs waiting for a place, at the create gate or in a sleep under one AbortSignal add one listener (Node 20 warned
 * MaxListenersExceededWarning past ten), and an abort still stops each of them.
 */
import { getEventListeners } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APIUserAbortError } from '../../src/index.js';
import { whenAborted } from '../../src/internal/abort-listener.js';
import { ConcurrencyLimiter } from '../../src/internal/concurrency-limiter.js';
import { CreateGate } from '../../src/internal/create-gate.js';
import { sleep } from '../../src/internal/sleep.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

let warnings: Error[];
const onWarning = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(async () => {
  // Node emits a warning on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', onWarning);
  expect(warnings.map(String)).toEqual([]);
});

/** How each of `calls` settled: 'done', 'aborted' (APIUserAbortError) or another error's message. */
const outcomes = (calls: Promise<unknown>[]) =>
  Promise.all(
    calls.map((call) =>
      call.then(
        () => 'done',
        (error) => (error instanceof APIUserAbortError ? 'aborted' : String(error)),
      ),
    ),
  );

describe('whenAborted', () => {
  it('keeps one listener for any number of callbacks, calls each once in order, and removes it with the last', () => {
    const controller = new AbortController();
    const called: number[] = [];
    const forgets = Array.from({ length: 1000 }, (_, i) => whenAborted(controller.signal, () => called.push(i)));
    expect(listeners(controller.signal)).toBe(1);
    for (const forget of forgets.slice(0, 999)) forget();
    expect(listeners(controller.signal)).toBe(1);
    forgets[999]?.();
    expect(listeners(controller.signal)).toBe(0);
    // Subscribing again after the set emptied adds the listener again.
    const forgetAgain = whenAborted(controller.signal, () => called.push(-1));
    expect(listeners(controller.signal)).toBe(1);
    whenAborted(controller.signal, () => called.push(-2));
    controller.abort();
    controller.abort();
    expect(called).toEqual([-1, -2]);
    expect(listeners(controller.signal)).toBe(0);
    forgetAgain();
  });

  it('skips a callback forgotten by an earlier one, and one forgotten twice forgets only itself', () => {
    const controller = new AbortController();
    const called: string[] = [];
    let forgetSecond = () => {};
    whenAborted(controller.signal, () => {
      called.push('first');
      forgetSecond();
    });
    forgetSecond = whenAborted(controller.signal, () => called.push('second'));
    const forgetThird = whenAborted(controller.signal, () => called.push('third'));
    forgetThird();
    forgetThird();
    whenAborted(controller.signal, () => called.push('fourth'));
    controller.abort();
    expect(called).toEqual(['first', 'fourth']);
  });

  it('calls nothing for no signal or one already aborted, as a listener added then would not be', () => {
    let calls = 0;
    whenAborted(undefined, () => calls++)();
    const aborted = AbortSignal.abort();
    const forget = whenAborted(aborted, () => calls++);
    expect(listeners(aborted)).toBe(0);
    forget();
    expect(calls).toBe(0);
  });

  it('calls every callback when one throws, then throws the first error from the listener', () => {
    const controller = new AbortController();
    const called: string[] = [];
    whenAborted(controller.signal, () => {
      called.push('a');
      throw new Error('first');
    });
    whenAborted(controller.signal, () => called.push('b'));
    // Node reports an error thrown by a listener as an uncaught exception: dispatch it by hand to see it.
    const [listener] = getEventListeners(controller.signal, 'abort') as Array<() => void>;
    expect(() => listener?.()).toThrow('first');
    expect(called).toEqual(['a', 'b']);
  });
});

describe('1,000 waits on one signal', () => {
  it('the job limiter: one listener while they wait for a place, and the abort rejects every one of them', async () => {
    const limiter = new ConcurrencyLimiter({ concurrency: 1 });
    const controller = new AbortController();
    let release = () => {};
    const holder = limiter.run(() => new Promise<void>((resolve) => (release = resolve)), { signal: controller.signal });
    const waiting = Array.from({ length: 1000 }, () => limiter.run(async () => 'ran', { signal: controller.signal }));
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    expect(new Set(await outcomes(waiting))).toEqual(new Set(['aborted']));
    release();
    await holder;
    expect(limiter.snapshot().running).toBe(0);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('the limiter lets go of the listener as places are granted', async () => {
    const limiter = new ConcurrencyLimiter({ concurrency: 64 });
    const controller = new AbortController();
    const jobs = Array.from({ length: 1000 }, () => limiter.run(async () => 'ran', { signal: controller.signal }));
    expect(listeners(controller.signal)).toBe(1);
    expect(new Set(await outcomes(jobs))).toEqual(new Set(['done']));
    expect(listeners(controller.signal)).toBe(0);
  });

  it('the create gate: one listener while creates wait their turn, and the abort rejects every one of them', async () => {
    // One create a minute: the first goes, the others wait.
    const gate = new CreateGate({ declared: { limit: 1, windowSeconds: 60 } });
    const controller = new AbortController();
    const first = await gate.take(controller.signal, 'The create');
    const waiting = Array.from({ length: 1000 }, () => gate.take(controller.signal, 'The create'));
    expect(listeners(controller.signal)).toBe(1);
    expect(gate.snapshot().waiting).toBe(1000);
    controller.abort();
    expect(new Set(await outcomes(waiting))).toEqual(new Set(['aborted']));
    first.settle('accepted');
    expect(gate.snapshot().waiting).toBe(0);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('sleep: one listener for 1,000 sleeps, gone when they end, and an abort stops the ones still asleep', async () => {
    const controller = new AbortController();
    await Promise.all(Array.from({ length: 1000 }, () => sleep(1, controller.signal)));
    expect(listeners(controller.signal)).toBe(0);
    const asleep = Array.from({ length: 1000 }, () => sleep(60_000, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    controller.abort();
    expect(new Set(await outcomes(asleep))).toEqual(new Set(['aborted']));
  });
});

describe('one mechanism', () => {
  it("leaves addEventListener('abort') to abort-listener.ts in src/, but for the proxy, the MCP server and the CLI", () => {
    // Those three add one listener to a signal they hold (a browser's request, a session), never one per job.
    const src = join(import.meta.dirname, '../../src');
    const own = ['proxy/', 'mcp/', 'cli/', 'internal/abort-listener.ts'];
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
    const adding = files.filter(
      (file) =>
        !own.some((prefix) => file.replaceAll('\\', '/').startsWith(prefix)) &&
        /addEventListener\(\s*['"]abort['"]/.test(readFileSync(join(src, file), 'utf8')),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(adding).toEqual([]);
  });
});
