import { describe, expect, it } from 'vitest';
import { SESSION_IDLE_MS, sessionExpired, sweepEveryMs } from '../../src/mcp/session-expiry.js';
import { useCleanup } from '../helpers/fixture.js';

useCleanup();

describe('mcp --http session expiry', () => {
  const idle = SESSION_IDLE_MS;

  it('closes a session with nothing open once the idle time has passed, not before', () => {
    expect(idle).toBe(30 * 60_000);
    expect(sessionExpired({ open: 0, lastActiveMs: 1000 }, 1000 + idle - 1, idle)).toBe(false);
    expect(sessionExpired({ open: 0, lastActiveMs: 1000 }, 1000 + idle, idle)).toBe(true);
  });

  it('never closes a session with a request or a stream open, however long ago it began', () => {
    expect(sessionExpired({ open: 1, lastActiveMs: 0 }, 100 * idle, idle)).toBe(false);
    expect(sessionExpired({ open: 3, lastActiveMs: 0 }, 100 * idle, idle)).toBe(false);
  });

  it('looks every quarter of the idle time, at most every minute and at least every 50 ms', () => {
    expect(sweepEveryMs(idle)).toBe(60_000);
    expect(sweepEveryMs(2000)).toBe(500);
    expect(sweepEveryMs(10)).toBe(50);
  });
});
