import diagnostics_channel from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { onTestFinished, vi } from 'vitest';
import { rawServer } from './raw-server.js';

/** Fake time for a wait's schedule, from {@link fakeTime}. */
export interface FakeTime {
  /** Fake ms since the clock was faked. */
  now(): number;
  /** When each request attempt started since the last `run` began, in fake ms. */
  readonly requests: readonly number[];
  /** The fake time between one request and the next: a wait's sleeps, as its polls take none. */
  sleeps(): number[];
  /** Await `call`, moving the clock from timer to timer whenever no request is on the wire, until it settles. */
  run<T>(call: () => Promise<T>): Promise<T>;
}

/** The SDK's request channel: it tells when a request is on the wire (internal/tracing.ts). */
const requestChannel = diagnostics_channel.tracingChannel('avatar-video:request');

/**
 * vitest's fake timers for this test: setTimeout, performance and Date are faked (sockets, setImmediate and the
 * servers of the test stay real), and Math.random is 0 (no jitter). `run` moves the clock only while no request is
 * on the wire, so a wait's sleeps take no wall time and its polls take no fake time. Undone when the test ends.
 */
export async function fakeTime(): Promise<FakeTime> {
  await realUndiciTick();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
  const random = vi.spyOn(Math, 'random').mockReturnValue(0);
  const start = performance.now();
  const now = () => performance.now() - start;
  const requests: number[] = [];
  let onTheWire = 0;
  const trace = {
    start: () => {
      onTheWire += 1;
      requests.push(now());
    },
    asyncEnd: () => {
      onTheWire -= 1;
    },
    end: () => {},
    asyncStart: () => {},
    error: () => {},
  };
  requestChannel.subscribe(trace);
  onTestFinished(() => {
    requestChannel.unsubscribe(trace);
    random.mockRestore();
    vi.useRealTimers();
  });
  return {
    now,
    requests,
    sleeps: () => requests.slice(1).map((at, i) => at - (requests[i] as number)),
    async run(call) {
      requests.length = 0;
      let settled = false;
      const outcome = call().finally(() => {
        settled = true;
      });
      outcome.catch(() => {});
      for (;;) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (settled) return outcome;
        if (onTheWire === 0) await vi.advanceTimersToNextTimerAsync();
      }
    },
  };
}

let undiciTick: Promise<void> | undefined;

/**
 * undici runs its headers and body timeouts on one shared timer, made at its first use and refreshed ever after.
 * Made under fake timers it would be dead once they are gone, for the rest of the worker (test files share its
 * modules): so it is made first with the real timers, by one request.
 */
function realUndiciTick(): Promise<void> {
  undiciTick ??= (async () => {
    const server = await rawServer((_req, res) => res.end());
    const { Agent, request } = createRequire(import.meta.url)('undici') as typeof import('undici');
    const dispatcher = new Agent();
    try {
      await (await request(server.url, { dispatcher })).body.dump();
    } finally {
      await dispatcher.close();
      await server.close();
    }
  })();
  return undiciTick;
}
