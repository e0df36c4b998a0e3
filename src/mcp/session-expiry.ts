/**
 * When `mcp --http` forgets a session: a client that leaves without DELETE would otherwise keep its session (and its
 * server) in memory until the process stops. Only a session nobody uses is closed: none of its requests or streams
 * open (an SDK client keeps its GET stream open while connected), and none for the whole idle time.
 */

/** How long a session may sit with nothing open before it is closed: 30 minutes. */
export const SESSION_IDLE_MS = 30 * 60_000;

/** What the server knows of one session's use. */
export interface SessionActivity {
  /** Its requests whose responses are still open: calls being answered, SSE streams (POST or GET). */
  open: number;
  /** When it last began or ended a request, in ms (Date.now()). */
  lastActiveMs: number;
}

/** Whether a session is idle past `idleMs` at `nowMs`: never while anything of it is open. */
export function sessionExpired(session: SessionActivity, nowMs: number, idleMs: number): boolean {
  return session.open === 0 && nowMs - session.lastActiveMs >= idleMs;
}

/** How often to look for expired sessions: a quarter of the idle time (so one closes by 1.25x it), at most every minute. */
export function sweepEveryMs(idleMs: number): number {
  return Math.min(60_000, Math.max(50, Math.round(idleMs / 4)));
}
