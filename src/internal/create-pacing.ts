import type { CreateRate } from './create-rate.js';

/**
 * When the next create may be sent, as a pure policy: state + event -> state, and {@link nextCreateAt}. The
 * account may make `limit` creates in any window of `windowMs`; the rate is declared by the user or learned from
 * refusals (429). Each rule in one sentence:
 *
 * - Counting: a create on the wire, accepted, or of unknown fate takes a slot of the window; a refused one frees it.
 * - Anchors: an answered create counts from its answer's arrival (never before the server saw it), and each slot
 *   frees `SAFETY` after its window, so the server's clock never finds the window a millisecond short.
 * - Declared: a create goes only when fewer than `limit` slots are taken in the last window.
 * - Unknown: while no rate is known, creates on the wire are at most half those accepted since the last refusal (at
 *   least one), so that one refusal, not several, teaches a small limit, and creates still overlap where none applies.
 * - Limit: a refusal teaches the fewest creates per window that every answer so far fits (windows are at least 1 s).
 * - Window: each refusal proves the window longer than what it waited, each acceptance of a probe at most that.
 * - Probe: while the window is not bounded, one create at a time goes after the oldest counted slot at the smallest
 *   round window (1, 2, 3, 6, 10, 15, 30, 60 s...) at least twice the proven lower bound.
 * - Retry-After: it is the earliest next try, and it tells the window: when the oldest slot frees, counted from when
 *   that create was sent (taken to a round window within a second of it); one that frees a slot sooner than 1 s after it is a job ending, and teaches nothing. Under a declared rate, a refusal without one keeps its slot taken for a window.
 * - Relax: after `RELAX_WINDOWS` windows without a refusal the lower bound is forgotten and one create probes the
 *   next shorter round window; after `FORGET_WINDOWS` the learned rate is forgotten altogether.
 *
 * @internal
 */

/** One create counted by the policy. */
export interface CountedCreate {
  id: number;
  /** Sent at (on the wire), else when its answer (or its failure) arrived, in ms. */
  at: number;
  /** When it was sent, in ms: the server saw it between this and `at`. */
  sentAt: number;
  state: 'wire' | 'accepted' | 'unknown';
  /** The window this create probes, in ms, when it was let out as a probe. */
  probeMs?: number | undefined;
}

export interface PacingState {
  /** The rate the user declared: kept to, never learned. */
  declared: { limit: number; windowMs: number } | undefined;
  /** Creates on the wire, and the latest answered (for the window and for learning), oldest first. */
  creates: CountedCreate[];
  /** Creates per window, once a refusal taught it. */
  limit: number | undefined;
  /** The window is longer than this, in ms (proven by a refusal). */
  lowerMs: number;
  /** The window is at most this, in ms (proven by an accepted probe or a Retry-After); Infinity when unbounded. */
  upperMs: number;
  /** No create before this (a Retry-After), in ms. */
  notBefore: number;
  /** The last refusal (or the last relaxation), in ms: quiet windows count from it. */
  quietSince: number;
  /** Creates accepted since the last refusal. */
  acceptedRun: number;
}

export type PacingEvent =
  /** A create let out at `at`. */
  | { type: 'sent'; id: number; at: number }
  /** Its answer: accepted, refused 429 (`throttled`, with the server's Retry-After), refused otherwise (`released`:
   * 503, unsent, an error answer that made no job), or of unknown fate (it may have made a job). */
  | { type: 'accepted' | 'released' | 'unknown'; id: number; at: number }
  | { type: 'throttled'; id: number; at: number; retryAfterMs?: number | undefined };

/** The rate a create is let out under; `probing` when it tests `windowMs` as the window (one create at a time). */
export interface RateInForce {
  limit: number;
  windowMs: number;
  probing: boolean;
}

/** Round windows rate limits are usually set in, in seconds; beyond the last, multiples of it. */
const ROUND_WINDOWS = [1, 2, 3, 6, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
/** No window shorter than this is believed: answers a few ms apart are jitter, not a window. */
const MIN_WINDOW_MS = 1_000;
/** Answered creates kept to learn the limit from. */
const HISTORY = 32;
/** Windows without a refusal before a shorter window is tried. */
const RELAX_WINDOWS = 10;
/** Windows without a refusal before the learned rate is forgotten. */
const FORGET_WINDOWS = 60;

/** Margin added to each window for clocks and rounding: 0.5% of it and 10 ms, at most 250 ms. */
export function safetyMs(windowMs: number): number {
  return Math.min(250, 10 + windowMs * 0.005);
}

export function initialPacing(declared?: CreateRate): PacingState {
  return {
    declared: declared ? { limit: declared.limit, windowMs: declared.windowSeconds * 1000 } : undefined,
    creates: [],
    limit: undefined,
    lowerMs: 0,
    upperMs: Number.POSITIVE_INFINITY,
    notBefore: Number.NEGATIVE_INFINITY,
    quietSince: Number.NEGATIVE_INFINITY,
    acceptedRun: 0,
  };
}

/** The rate creates go out under now; undefined while none is known. */
export function rateInForce(state: PacingState): RateInForce | undefined {
  if (state.declared) return { ...state.declared, probing: false };
  if (state.limit === undefined) return undefined;
  const probe = probeWindow(state.lowerMs, state.upperMs);
  return probe === undefined
    ? { limit: state.limit, windowMs: state.upperMs, probing: false }
    : { limit: state.limit, windowMs: probe, probing: true };
}

/** The round window to probe: the smallest at least twice `lowerMs` (and 1 s) and below `upperMs`; else none. */
export function probeWindow(lowerMs: number, upperMs: number): number | undefined {
  const floor = Math.max(MIN_WINDOW_MS, 2 * lowerMs);
  const last = (ROUND_WINDOWS.at(-1) as number) * 1000;
  const round = ROUND_WINDOWS.map((s) => s * 1000).find((ms) => ms >= floor) ?? Math.ceil(floor / last) * last;
  return round < upperMs ? round : undefined;
}

/**
 * The earliest time a create may be sent, at or after `now` (ms); undefined while it must wait for an answer (the
 * slots are all on the wire, or a create of an unknown rate or a probe is).
 */
export function nextCreateAt(state: PacingState, now: number): number | undefined {
  const rate = rateInForce(state);
  const wire = state.creates.filter((create) => create.state === 'wire');
  const width = rate === undefined ? Math.max(1, Math.floor(state.acceptedRun / 2)) : 1;
  if (rate === undefined || rate.probing) return wire.length >= width ? undefined : slotFreeAt(state, now, rate);
  if (wire.length >= rate.limit) return undefined;
  return slotFreeAt(state, now, rate);
}

/** When the counted creates leave a slot free under `rate` (now, with no rate), no sooner than the Retry-After. */
function slotFreeAt(state: PacingState, now: number, rate: RateInForce | undefined): number {
  const earliest = Math.max(now, state.notBefore);
  if (rate === undefined) return earliest;
  const windowMs = rate.windowMs + safetyMs(rate.windowMs);
  const taken = state.creates.filter((create) => create.state === 'wire' || create.at + windowMs > earliest);
  if (taken.length < rate.limit) return earliest;
  // The answered slots, newest first: the one whose leaving brings the count below the limit.
  const answered = taken.filter((create) => create.state !== 'wire').sort((a, b) => b.at - a.at);
  const freeing = answered[rate.limit - 1 - (taken.length - answered.length)] as CountedCreate;
  return Math.max(earliest, freeing.at + windowMs);
}

/** The state after `event`. */
export function nextPacing(state: PacingState, event: PacingEvent): PacingState {
  if (event.type === 'sent') {
    const rate = rateInForce(state);
    const create: CountedCreate = {
      id: event.id,
      at: event.at,
      sentAt: event.at,
      state: 'wire',
      probeMs: rate?.probing ? rate.windowMs : undefined,
    };
    return { ...state, creates: [...state.creates, create] };
  }
  const create = state.creates.find((counted) => counted.id === event.id);
  const others = state.creates.filter((counted) => counted.id !== event.id);
  if (event.type === 'released' || create === undefined) return { ...state, creates: others };
  if (event.type !== 'throttled') {
    const answered = { ...create, at: event.at, state: event.type === 'accepted' ? ('accepted' as const) : ('unknown' as const) };
    const upperMs = event.type === 'accepted' && create.probeMs !== undefined ? Math.min(state.upperMs, create.probeMs) : state.upperMs;
    const acceptedRun = state.acceptedRun + (event.type === 'accepted' ? 1 : 0);
    return { ...state, upperMs, acceptedRun, creates: trimmed([...others, answered]) };
  }
  // Refused under a declared rate, another host took the slot: it stays taken for a window.
  if (state.declared && event.retryAfterMs === undefined) {
    return { ...state, creates: trimmed([...others, { ...create, at: event.at, state: 'unknown' }]) };
  }
  return refused({ ...state, creates: others }, create, event.at, event.retryAfterMs);
}

/** Keep the creates on the wire and the last {@link HISTORY} answered, in the order they were answered. */
function trimmed(creates: CountedCreate[]): CountedCreate[] {
  const answered = creates.filter((create) => create.state !== 'wire');
  const drop = new Set(answered.slice(0, Math.max(0, answered.length - HISTORY)));
  return creates.filter((create) => !drop.has(create));
}

/** What a 429 teaches: a declared rate only its Retry-After; else the limit, the window's bounds, the Retry-After. */
function refused(state: PacingState, create: CountedCreate, at: number, retryAfterMs: number | undefined): PacingState {
  const notBefore = Math.max(state.notBefore, at + (retryAfterMs ?? 0));
  if (state.declared) return { ...state, notBefore };
  const rate = rateInForce(state);
  let next: PacingState = { ...state, notBefore, quietSince: at, acceptedRun: 0 };
  if (create.probeMs !== undefined) next.lowerMs = Math.max(next.lowerMs, create.probeMs);
  // Unforeseen (no rate known, or the rate in force allowed this create sent since the last refusal): learn again.
  else if (create.at >= state.quietSince && (rate === undefined || !rate.probing))
    next = { ...next, ...learnedLimit(acceptedTimes(state), { sentAt: create.sentAt, at }) };
  if (retryAfterMs === undefined) return next;
  // A slot freed sooner than the least window believed is a job ending, not a rate's window: honoured, nothing learned.
  return windowFromRetryAfter(next, at + retryAfterMs) ?? { ...state, notBefore, acceptedRun: 0 };
}

const acceptedTimes = (state: PacingState): SeenBetween[] =>
  state.creates.filter((create) => create.state === 'accepted').map(({ sentAt, at }) => ({ sentAt, at }));

/** When the server saw a create: after it was sent and before its answer arrived, in ms. */
export interface SeenBetween {
  sentAt: number;
  at: number;
}

/**
 * The fewest creates per window that the accepted creates and a refusal all fit, with the window's bounds they
 * prove: refused, so the `limit`-th newest accepted is within the window; each accepted, so the create `limit`
 * before it was not. Each bound takes the far end of when the server saw each create, so a slow answer never
 * proves a bound that is not so.
 */
export function learnedLimit(accepted: SeenBetween[], refusal: SeenBetween): Pick<PacingState, 'limit' | 'lowerMs' | 'upperMs'> {
  const seen = [...accepted].sort((a, b) => a.at - b.at);
  for (let limit = 1; limit <= seen.length; limit++) {
    const lowerMs = Math.max(0, refusal.sentAt - (seen[seen.length - limit] as SeenBetween).at);
    let upperMs = Number.POSITIVE_INFINITY;
    for (let i = limit; i < seen.length; i++)
      upperMs = Math.min(upperMs, (seen[i] as SeenBetween).at - (seen[i - limit] as SeenBetween).sentAt);
    if (Math.max(lowerMs, MIN_WINDOW_MS) < upperMs) return { limit, lowerMs, upperMs };
  }
  return { limit: Math.max(1, seen.length), lowerMs: 0, upperMs: Number.POSITIVE_INFINITY };
}

/**
 * A Retry-After ending at `freeAt`: the oldest counted slot frees then, so that is its end of window; undefined when
 * that would be a window shorter than the least believed.
 */
function windowFromRetryAfter(state: PacingState, freeAt: number): PacingState | undefined {
  const accepted = state.creates.filter((create) => create.state === 'accepted').sort((a, b) => b.at - a.at);
  const oldest = accepted[(state.limit as number) - 1];
  if (oldest === undefined) return state;
  // From when it was sent, not answered: the server saw it no sooner, so the window is never taken short when an
  // acceptance's answer came back slower than the refusal's.
  const measured = freeAt - oldest.sentAt;
  if (measured < MIN_WINDOW_MS) return undefined;
  const round = ROUND_WINDOWS.map((s) => s * 1000).find((ms) => ms >= measured - 1_000 && ms <= measured + 100);
  const windowMs = Math.max(round ?? measured, MIN_WINDOW_MS);
  return { ...state, upperMs: windowMs, lowerMs: Math.max(0, windowMs - 1_000) };
}

/** `state` at `now` after its quiet windows: the lower bound forgotten after a few, the learned rate after many. */
export function relaxed(state: PacingState, now: number): PacingState {
  if (state.declared || state.limit === undefined) return state;
  const windowMs = Number.isFinite(state.upperMs) ? state.upperMs : 60_000;
  const quiet = (now - state.quietSince) / windowMs;
  if (quiet >= FORGET_WINDOWS) return { ...initialPacing(), creates: state.creates, notBefore: state.notBefore };
  if (quiet >= RELAX_WINDOWS && state.lowerMs > 0) {
    // Forget the lower bound and step one round window down: the next create probes it.
    const below = ROUND_WINDOWS.map((s) => s * 1000).filter((ms) => ms < state.upperMs && ms >= MIN_WINDOW_MS);
    const lowerMs = below.length > 0 ? (below.at(-1) as number) / 2 : 0;
    return { ...state, lowerMs, quietSince: now };
  }
  return state;
}
