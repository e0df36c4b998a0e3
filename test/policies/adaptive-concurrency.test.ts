import { describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../src/index.js';
import {
  allowedConcurrency,
  BETA,
  BETA_FAILED,
  type ConcurrencyEvent,
  type ConcurrencyState,
  cubicLimit,
  initialConcurrency,
  nextConcurrency,
} from '../../src/internal/adaptive-concurrency.js';
import { ConcurrencyLimiter, concurrencyBounds, type JobPlace } from '../../src/internal/concurrency-limiter.js';

const bounds = { min: 1, max: 64 };
const JOB = 1_000;

/** Feed events in order from the initial state. */
const run = (events: ConcurrencyEvent[], initial = 2): ConcurrencyState =>
  events.reduce((state, event) => nextConcurrency(state, event, bounds), initialConcurrency(initial));

const admitted = (at: number, running: number): ConcurrencyEvent => ({ type: 'admitted', at, running });
const completed = (at: number, startedAt = at - JOB): ConcurrencyEvent => ({ type: 'completed', at, startedAt });
const refused = (at: number, startedAt = at, retryAfterMs?: number, running = 1): ConcurrencyEvent => ({
  type: 'throttled',
  cause: 'refused',
  at,
  startedAt,
  running,
  retryAfterMs,
});
const failed = (at: number, startedAt = at - JOB): ConcurrencyEvent => ({ type: 'throttled', cause: 'failed', at, startedAt, running: 1 });

/** A service that accepts `n` jobs: admitted creates at levels 1..n, each growing the limit in slow start. */
const rampTo = (n: number, at = 0) => Array.from({ length: n }, (_, i) => admitted(at, i + 1));

describe('adaptive concurrency policy', () => {
  it('starts low and, until the first throttle, opens one more place per accepted create', () => {
    const start = initialConcurrency(2);
    expect(allowedConcurrency(start, 0)).toBe(2);
    // Probing: each accepted create proves a level, and the limit stands one above it.
    expect(run([admitted(0, 1), admitted(0, 2), admitted(0, 3)]).limit).toBe(4);
  });

  it('after a throttle in slow start, grows by a half per accepted create and per job that ends well', () => {
    const dipped = run([...rampTo(4), failed(10)]);
    expect(dipped.slowStart).toBe(true);
    const state = [admitted(20, 5), completed(1_000)].reduce((s, e) => nextConcurrency(s, e, bounds), dipped);
    expect(state.limit).toBeCloseTo(dipped.limit + 1);
  });

  it('never grows more than one above the most jobs the service accepted at once', () => {
    // Ten jobs end well, but the service was only ever seen running 3: the limit stops at 4.
    const state = run([...rampTo(3), ...Array.from({ length: 10 }, (_, i) => completed(JOB + i))]);
    expect(state.limit).toBe(4);
  });

  it('cuts to BETA on a refusal, ends slow start, and pauses for the Retry-After', () => {
    const before = run(rampTo(8));
    expect(before.limit).toBe(9);
    const after = nextConcurrency(before, refused(5_000, 4_990, 1_500), bounds);
    expect(after.limit).toBeCloseTo(9 * BETA);
    expect(after.slowStart).toBe(false);
    expect(after.ceilingAtThrottle).toBe(9);
    expect(allowedConcurrency(after, 6_499)).toBe(0);
    expect(allowedConcurrency(after, 6_500)).toBe(6);
  });

  it('counts one cut for a burst of refusals that started before it, but honours each pause', () => {
    const before = run(rampTo(8));
    const once = nextConcurrency(before, refused(5_000, 4_990, 100), bounds);
    const twice = nextConcurrency(once, refused(5_010, 4_995, 2_000), bounds);
    expect(twice.limit).toBe(once.limit);
    expect(twice.pausedUntil).toBe(7_010);
    // A refusal of a request sent after the cut is news: it cuts again.
    const thrice = nextConcurrency(twice, refused(5_100, 5_050), bounds);
    expect(thrice.limit).toBeCloseTo(once.limit * BETA);
  });

  it('does not cut again for a refusal made while more jobs run than the cut limit allows (the old limit let them in)', () => {
    const once = nextConcurrency(run(rampTo(8)), refused(5_000), bounds);
    // Sent after the cut, but by one of the 9 jobs the old limit allowed: the cut to 6.3 already answers it.
    const overshoot = nextConcurrency(once, refused(5_020, 5_010, 100, 8), bounds);
    expect(overshoot.limit).toBe(once.limit);
    expect(overshoot.pausedUntil).toBe(5_120);
    const news = nextConcurrency(once, refused(5_020, 5_010, undefined, 6), bounds);
    expect(news.limit).toBeLessThan(once.limit);
  });

  it('recovers along the cubic curve: concave back to the ceiling, then convex beyond it', () => {
    const ceiling = 10;
    const start = ceiling * BETA;
    const values = [0, 1, 2, 3, 4, 5, 6].map((t) => cubicLimit(ceiling, start, t * JOB, JOB));
    expect(values[0]).toBeCloseTo(start);
    const k = Math.cbrt((ceiling - start) / 0.2);
    expect(cubicLimit(ceiling, start, k * JOB, JOB)).toBeCloseTo(ceiling);
    // Steps shrink while approaching the ceiling, then grow again past it.
    const steps = values.slice(1).map((v, i) => v - (values[i] as number));
    const flattest = steps.indexOf(Math.min(...steps));
    expect(flattest).toBeGreaterThan(0);
    expect(flattest).toBeLessThan(steps.length - 1);
    expect(steps.slice(0, flattest).every((step, i) => step >= (steps[i + 1] as number))).toBe(true);
    expect(steps.slice(flattest).every((step, i, rest) => i === 0 || step >= (rest[i - 1] as number))).toBe(true);
  });

  it('time on the curve is counted in job durations: slow jobs recover as many jobs later, not as many seconds', () => {
    const fast = cubicLimit(10, 7, 1_000, 1_000);
    const slow = cubicLimit(10, 7, 120_000, 120_000);
    expect(slow).toBeCloseTo(fast);
    expect(cubicLimit(10, 7, 1_000, 120_000)).toBeLessThan(fast);
  });

  it('after a cut, grows along the curve and no more than one per ending job', () => {
    const cut = nextConcurrency(run(rampTo(12)), refused(10_000), bounds);
    let state = cut;
    const limits: number[] = [];
    for (let i = 1; i <= 40; i++) {
      // A service with room for anything: every create at the current limit is accepted.
      state = nextConcurrency(state, admitted(10_000 + i * 250, Math.floor(state.limit)), bounds);
      state = nextConcurrency(state, completed(10_000 + i * 250), bounds);
      limits.push(state.limit);
    }
    expect(limits.every((limit, i) => limit - (i === 0 ? cut.limit : (limits[i - 1] as number)) <= 1 + 1e-9)).toBe(true);
    expect(limits.every((limit, i) => i === 0 || limit >= (limits[i - 1] as number))).toBe(true);
    expect(state.limit).toBeGreaterThan(cut.ceilingAtThrottle);
  });

  it('a rate-limited job failure cuts less, keeps slow start and never lowers the ceiling', () => {
    const before = run(rampTo(8));
    const after = nextConcurrency(before, failed(5_000), bounds);
    expect(after.limit).toBeCloseTo(before.limit * BETA_FAILED);
    expect(after.slowStart).toBe(true);
    const inCubic = nextConcurrency(run(rampTo(8)), refused(5_000), bounds);
    const dipped = nextConcurrency(inCubic, failed(6_000, 5_500), bounds);
    expect(dipped.ceilingAtThrottle).toBe(inCubic.ceilingAtThrottle);
  });

  it('a refusal below the last ceiling lowers the ceiling below the limit (fast convergence)', () => {
    const first = nextConcurrency(run(rampTo(12)), refused(1_000), bounds); // ceiling 10
    const second = nextConcurrency(first, refused(2_000), bounds);
    expect(second.ceilingAtThrottle).toBeCloseTo((first.limit * (1 + BETA)) / 2);
    expect(second.ceilingAtThrottle).toBeLessThan(first.limit);
  });

  it('stays within its bounds', () => {
    let state = initialConcurrency(2);
    for (let i = 0; i < 20; i++) state = nextConcurrency(state, refused(i * 10, i * 10), { min: 1, max: 4 });
    expect(state.limit).toBe(1);
    state = initialConcurrency(2);
    for (let i = 0; i < 50; i++) {
      state = nextConcurrency(state, admitted(i, i + 1), { min: 1, max: 4 });
      state = nextConcurrency(state, completed(i), { min: 1, max: 4 });
    }
    expect(state.limit).toBe(4);
  });
});

/** A job that ends when the test says: `finish()` resolves it, `fail(error)` rejects it. */
function gate() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const ended = new Promise<string>((resolve, reject) => {
    finish = () => resolve('done');
    fail = reject;
  });
  return { job: () => ended, finish, fail };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimiter', () => {
  it('runs jobs up to the limit, in arrival order, and more as jobs end, counting each place once', async () => {
    let now = 0;
    const limiter = new ConcurrencyLimiter({ now: () => now });
    const started: number[] = [];
    const gates = [1, 2, 3, 4].map(() => gate());
    const runs = gates.map((g, i) =>
      limiter.run(() => {
        started.push(i + 1);
        return g.job();
      }),
    );
    await tick();
    expect(started).toEqual([1, 2]);
    now = 1_000;
    gates[0]!.finish();
    await expect(runs[0]).resolves.toBe('done');
    await tick();
    expect(started).toEqual([1, 2, 3]);
    expect(limiter.snapshot().running).toBe(2);
    gates[1]!.fail(new Error('a local error'));
    await expect(runs[1]).rejects.toThrow('a local error');
    await tick();
    expect(started).toEqual([1, 2, 3, 4]);
    expect(limiter.snapshot().running).toBe(2);
    for (const g of gates) g.finish();
    await Promise.all(runs.slice(2));
    expect(limiter.snapshot().running).toBe(0);
  });

  it('holds new jobs during a Retry-After pause, then runs them', async () => {
    vi.useFakeTimers();
    try {
      const limiter = new ConcurrencyLimiter({ concurrency: 4, now: () => Date.now() });
      await limiter.run(async (place) => place.throttled(60, place.now()));
      expect(limiter.limit).toBe(0);
      let started = false;
      const running = limiter.run(async () => {
        started = true;
      });
      await vi.advanceTimersByTimeAsync(59);
      expect(started).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(started).toBe(true);
      await running;
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects a waiting job when its signal fires, and forgets it', async () => {
    const limiter = new ConcurrencyLimiter({ concurrency: 1 });
    const held = gate();
    const holding = limiter.run(held.job);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(
      async () => {
        ran = true;
      },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'APIUserAbortError' });
    held.finish();
    await holding;
    expect(ran).toBe(false);
    expect(limiter.snapshot().running).toBe(0);
  });

  it('probes past the jobs the service accepted, not past the places still waiting for their create', async () => {
    const limiter = new ConcurrencyLimiter({ now: () => 0 });
    const held = [gate(), gate()];
    const places: JobPlace[] = [];
    for (const g of held) {
      void limiter.run((place) => {
        places.push(place);
        return g.job();
      });
    }
    let third = false;
    void limiter.run(async () => {
      third = true;
    });
    await tick();
    places[0]?.admitted(); // one of the two creates answered: only one job is known to run
    await tick();
    expect(third).toBe(false);
    places[1]?.admitted(); // both run: one more may be tried
    await tick();
    expect(third).toBe(true);
  });

  it('takes a resumed job at once, even above the limit', async () => {
    const limiter = new ConcurrencyLimiter({ concurrency: 1 });
    const jobs = [gate(), gate()];
    const runs = jobs.map((g) => limiter.run(g.job, { resumed: true }));
    expect(limiter.snapshot().running).toBe(2);
    for (const g of jobs) g.finish();
    await Promise.all(runs);
  });

  it('holds every job to the one limit, in arrival order: no caller brings a limit of its own', async () => {
    const limiter = new ConcurrencyLimiter({ now: () => 0 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const runs = ['a', 'b', 'c', 'd'].map((name) => {
      const g = gate();
      gates.set(name, g);
      return limiter.run(() => {
        started.push(name);
        return g.job();
      });
    });
    await tick();
    expect(started).toEqual(['a', 'b']);
    expect(limiter.snapshot()).toMatchObject({ limit: 2, running: 2 });
    gates.get('b')?.finish();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(limiter.snapshot().running).toBe(2);
    for (const g of gates.values()) g.finish();
    await Promise.all(runs);
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('teaches the policy what its holder says of how a job ended, and shows the last throttle', async () => {
    const limiter = new ConcurrencyLimiter({ now: () => 0 });
    expect(limiter.snapshot()).toEqual({ limit: 2, running: 0 });
    // A job that fails untold teaches nothing: the limiter classifies no error of its own.
    await expect(limiter.run(() => Promise.reject(new Error('rate limited')))).rejects.toThrow();
    expect(limiter.snapshot()).toEqual({ limit: 2, running: 0 });
    const told = limiter.run(async (place) => {
      place.ended('throttled');
      throw new Error('rate limited');
    });
    await expect(told).rejects.toThrow();
    expect(limiter.snapshot()).toMatchObject({ running: 0, lastThrottle: { cause: 'failed', at: expect.any(Date) } });
    await limiter.run(async (place) => place.throttled(1_500, 0));
    expect(limiter.snapshot().lastThrottle).toMatchObject({ cause: 'refused', retryAfterMs: 1_500 });
    expect(limiter.limit).toBe(0); // paused for the Retry-After...
    expect(limiter.snapshot().limit).toBe(1); // ...which the snapshot shows in lastThrottle, not as a limit of 0
  });

  it('takes a fixed jobConcurrency as its bounds, and refuses one that is not a whole number of at least 1', () => {
    expect(new ConcurrencyLimiter({ concurrency: 5 }).snapshot().limit).toBe(5);
    expect(new ConcurrencyLimiter({ concurrency: 5 }).bounds).toEqual({ min: 5, max: 5 });
    expect(concurrencyBounds('auto', 'jobConcurrency')).toBeUndefined();
    for (const bad of [0, 1.5, -2, Number.NaN]) {
      expect(() => new ConcurrencyLimiter({ concurrency: bad })).toThrow(InvalidArgumentError);
      expect(() => concurrencyBounds(bad, 'jobConcurrency')).toThrow(/jobConcurrency must be 'auto' or a whole number/);
    }
  });
});
