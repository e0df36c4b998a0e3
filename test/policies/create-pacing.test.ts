/**
 * The create pacing policy (internal/create-pacing.ts) on its own: a declared rate's sliding window, what a 429 teaches
 * without a declared rate (the limit, the window's bounds by probing, a Retry-After), and the relaxing of a learned rate.
 */
import { describe, expect, it } from 'vitest';
import {
  initialPacing,
  learnedLimit,
  nextCreateAt,
  nextPacing,
  type PacingEvent,
  type PacingState,
  probeWindow,
  rateInForce,
  relaxed,
  safetyMs,
} from '../../src/internal/create-pacing.js';

/** Creates the server saw at these times, answered at once. */
const at = (...times: number[]) => times.map((time) => ({ sentAt: time, at: time }));
const seen = (time: number) => ({ sentAt: time, at: time });
const apply = (state: PacingState, ...events: PacingEvent[]) => events.reduce(nextPacing, state);
/** A create sent at `at` and accepted `latency` ms later. */
const accepted = (id: number, at: number, latency = 10): PacingEvent[] => [
  { type: 'sent', id, at },
  { type: 'accepted', id, at: at + latency },
];

describe('a declared rate', () => {
  const declared = initialPacing({ limit: 2, windowSeconds: 6 });

  it('lets `limit` creates go at once, then the next when the oldest answered leaves the window, with a margin', () => {
    expect(nextCreateAt(declared, 0)).toBe(0);
    const one = apply(declared, { type: 'sent', id: 1, at: 0 });
    expect(nextCreateAt(one, 0)).toBe(0);
    const two = apply(one, { type: 'sent', id: 2, at: 0 });
    // Both on the wire: no answer yet tells when a slot frees.
    expect(nextCreateAt(two, 5)).toBeUndefined();
    const answered = apply(two, { type: 'accepted', id: 1, at: 100 }, { type: 'accepted', id: 2, at: 150 });
    expect(nextCreateAt(answered, 200)).toBe(100 + 6_000 + safetyMs(6_000));
    expect(safetyMs(6_000)).toBeLessThan(6_000 * 0.05);
    expect(safetyMs(60_000)).toBeLessThanOrEqual(250);
  });

  it('frees the slot of a create refused with a Retry-After, and waits that long; without one keeps it a window', () => {
    const refused = apply(declared, { type: 'sent', id: 1, at: 0 }, { type: 'throttled', id: 1, at: 50, retryAfterMs: 2_000 });
    expect(nextCreateAt(refused, 100)).toBe(2_050);
    const other = apply(declared, ...accepted(1, 0), { type: 'sent', id: 2, at: 20 }, { type: 'throttled', id: 2, at: 40 });
    // Another host took that slot: it counts as taken for a window.
    expect(nextCreateAt(other, 50)).toBe(10 + 6_000 + safetyMs(6_000));
    expect(rateInForce(other)).toEqual({ limit: 2, windowMs: 6_000, probing: false });
  });

  it('counts a create of unknown fate as taken, and frees one released unsent', () => {
    const unknown = apply(declared, { type: 'sent', id: 1, at: 0 }, { type: 'unknown', id: 1, at: 30 }, ...accepted(2, 40));
    expect(nextCreateAt(unknown, 60)).toBe(30 + 6_000 + safetyMs(6_000));
    const released = apply(declared, { type: 'sent', id: 1, at: 0 }, { type: 'released', id: 1, at: 30 }, ...accepted(2, 40));
    expect(nextCreateAt(released, 60)).toBe(60);
  });
});

describe('a learned rate', () => {
  it('sends one create at a time while no rate is known', () => {
    const state = apply(initialPacing(), { type: 'sent', id: 1, at: 0 });
    expect(nextCreateAt(state, 1)).toBeUndefined();
    expect(nextCreateAt(apply(state, { type: 'accepted', id: 1, at: 10 }), 11)).toBe(11);
  });

  it('learns from one 429 the fewest creates per window that all answers fit', () => {
    // Two accepted 20 ms apart, the third refused: 1 a window would need a window of 20 ms, below the least believed.
    expect(learnedLimit(at(10, 30), seen(50))).toEqual({ limit: 2, lowerMs: 40, upperMs: Number.POSITIVE_INFINITY });
    // One every 20 s, the third refused: not one a window (the second was accepted 20 s after the first).
    expect(learnedLimit(at(0, 20_000), seen(40_000))).toMatchObject({ limit: 2, lowerMs: 40_000 });
    // One accepted a minute ago, one now, then refused: one per window of between 10 ms and 60 s.
    expect(learnedLimit(at(0, 60_000), seen(60_010))).toEqual({ limit: 1, lowerMs: 10, upperMs: 60_000 });
    expect(learnedLimit([], seen(5))).toMatchObject({ limit: 1 });
    // One a second; the first create's answer came 300 ms late (a loaded host). Counted from the answers, the two
    // accepted would be 710 ms apart, too close for one a second, and two a window would be learned; counted from
    // when the server can have seen each, one a second fits.
    const slow = [
      { sentAt: 0, at: 300 },
      { sentAt: 1_000, at: 1_010 },
    ];
    expect(learnedLimit(slow, { sentAt: 1_020, at: 1_030 })).toEqual({ limit: 1, lowerMs: 10, upperMs: 1_010 });
  });

  it('probes the window one create at a time at round windows at least twice the proven bound', () => {
    expect([0, 40, 1_000, 2_000, 3_000, 6_000, 15_000, 30_000].map((low) => probeWindow(low, Number.POSITIVE_INFINITY))).toEqual([
      1_000, 1_000, 2_000, 6_000, 6_000, 15_000, 30_000, 60_000,
    ]);
    expect(probeWindow(2_000, 6_000)).toBeUndefined();
    expect(probeWindow(3_600_000, Number.POSITIVE_INFINITY)).toBe(7_200_000);

    let state = apply(initialPacing(), ...accepted(1, 0), ...accepted(2, 20), { type: 'sent', id: 3, at: 40 });
    state = apply(state, { type: 'throttled', id: 3, at: 50 });
    expect(rateInForce(state)).toEqual({ limit: 2, windowMs: 1_000, probing: true });
    // The probe goes a round window after the older of the two, with the margin.
    const probeAt = nextCreateAt(state, 60) as number;
    expect(probeAt).toBe(10 + 1_000 + safetyMs(1_000));
    state = apply(state, { type: 'sent', id: 4, at: probeAt });
    expect(nextCreateAt(state, probeAt)).toBeUndefined();
    state = apply(state, { type: 'throttled', id: 4, at: probeAt + 10 });
    expect(rateInForce(state)).toMatchObject({ windowMs: 2_000, probing: true });
    state = apply(state, { type: 'sent', id: 5, at: 2_100 }, { type: 'throttled', id: 5, at: 2_110 });
    expect(rateInForce(state)).toMatchObject({ windowMs: 6_000, probing: true });
    state = apply(state, ...accepted(6, 6_100));
    // Accepted: the window is at most 6 s; no round window at least twice 2 s lies below it, so probing ends.
    expect(rateInForce(state)).toEqual({ limit: 2, windowMs: 6_000, probing: false });
    expect(nextCreateAt(state, 6_200)).toBe(6_200);
  });

  it('honours a Retry-After as the earliest next try, and takes the window it tells', () => {
    let state = apply(initialPacing(), ...accepted(1, 0), ...accepted(2, 20), { type: 'sent', id: 3, at: 40 });
    // The server frees the older slot 6 s after it saw it: a round window within a second of that is taken.
    state = apply(state, { type: 'throttled', id: 3, at: 50, retryAfterMs: 5_950 });
    expect(rateInForce(state)).toEqual({ limit: 2, windowMs: 6_000, probing: false });
    expect(nextCreateAt(state, 60)).toBe(10 + 6_000 + safetyMs(6_000));
  });

  it('counts the window a Retry-After tells from when the oldest create was sent, not from its slow answer', () => {
    // Seen by the server at about 0, answered 300 ms later; the refusal's answer is quick. From the answer, the slot
    // would seem to free 700 ms after it: shorter than any window, so nothing would be learned and the next creates
    // would knock again. From the send, it is the 1 s window it is.
    let state = apply(initialPacing(), ...accepted(1, 0, 300), ...accepted(2, 300, 20), { type: 'sent', id: 3, at: 330 });
    state = apply(state, { type: 'throttled', id: 3, at: 340, retryAfterMs: 660 });
    expect(rateInForce(state)).toEqual({ limit: 2, windowMs: 1_000, probing: false });
    expect(nextCreateAt(state, 1_000)).toBe(300 + 1_000 + safetyMs(1_000));
  });

  it('relaxes: after quiet windows the lower bound is forgotten and a shorter round window probed; later, all of it', () => {
    let state = apply(initialPacing(), ...accepted(1, 0), ...accepted(2, 20), { type: 'sent', id: 3, at: 40 });
    state = apply(state, { type: 'throttled', id: 3, at: 50 }, ...accepted(4, 1_100));
    state = { ...state, lowerMs: 4_000, upperMs: 10_000 };
    expect(rateInForce(state)).toMatchObject({ windowMs: 10_000, probing: false });
    expect(relaxed(state, 50 + 5 * 10_000)).toBe(state);
    const later = relaxed(state, 50 + 10 * 10_000);
    expect(rateInForce(later)).toEqual({ limit: 2, windowMs: 6_000, probing: true });
    const forgotten = relaxed(state, 50 + 60 * 10_000);
    expect(rateInForce(forgotten)).toBeUndefined();
    expect(relaxed(initialPacing({ limit: 2, windowSeconds: 6 }), 1e12)).toEqual(initialPacing({ limit: 2, windowSeconds: 6 }));
  });
});

describe('a Retry-After too short for a rate’s window', () => {
  it('is honoured, and teaches nothing: a job ending freed the slot, not a window', () => {
    let state = apply(initialPacing(), ...accepted(1, 0), ...accepted(2, 20), { type: 'sent', id: 3, at: 40 });
    state = apply(state, { type: 'throttled', id: 3, at: 50, retryAfterMs: 200 });
    expect(rateInForce(state)).toBeUndefined();
    expect(nextCreateAt(state, 60)).toBe(250);
  });
});

describe('creates of an unknown rate', () => {
  it('overlap as creates are accepted: at most half those accepted since the last refusal', () => {
    let state = initialPacing();
    for (let id = 1; id <= 6; id++) state = apply(state, ...accepted(id, id * 100));
    state = apply(state, { type: 'sent', id: 7, at: 1_000 }, { type: 'sent', id: 8, at: 1_000 });
    expect(nextCreateAt(state, 1_000)).toBe(1_000);
    state = apply(state, { type: 'sent', id: 9, at: 1_000 });
    expect(nextCreateAt(state, 1_000)).toBeUndefined();
  });
});
