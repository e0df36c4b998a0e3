import { APIUserAbortError } from '../../src/index.js';
import type { WaitClock } from '../../src/lib/wait.js';

/**
 * Virtual time for a wait: `sleep` moves the clock (and calls `onSleep`, e.g. to move the mock's clock
 * along) and fires the deadline when it is due. Polls take no virtual time.
 */
export function virtualClock(onSleep: (ms: number) => void = () => {}) {
  let now = 0;
  const sleeps: number[] = [];
  const timers = new Set<{ at: number; fire: () => void }>();
  const clock: WaitClock = {
    now: () => now,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      now += ms;
      onSleep(ms);
      for (const timer of [...timers].filter((t) => t.at <= now)) {
        timers.delete(timer);
        timer.fire();
      }
      if (signal.aborted) throw new APIUserAbortError('Request was aborted.', { cause: signal.reason });
    },
    after: (ms, fire) => {
      const timer = { at: now + ms, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    random: () => 0,
  };
  return { clock, sleeps, now: () => now };
}
