import { APIUserAbortError } from '../errors.js';
import {
  allowedConcurrency,
  type ConcurrencyBounds,
  type ConcurrencyEvent,
  type ConcurrencyState,
  initialConcurrency,
  nextConcurrency,
} from './adaptive-concurrency.js';
import { sleep } from './sleep.js';

/** How a job held under a permit ended, as the policy sees it; `unknown` teaches it nothing (an abort, a local error). */
export type JobOutcome = 'completed' | 'throttled' | 'unknown';

/** One running job's place under the limit. */
export interface Permit {
  /** When the permit was granted (on the limiter's clock). */
  readonly startedAt: number;
  /** Give the place back and report how the job ended. Later calls do nothing. */
  release(outcome: JobOutcome, retryAfterMs?: number): void;
}

export interface LimiterOptions {
  /** Jobs allowed at first. @default 2 */
  initial?: number;
  /** @default 1 */
  min?: number;
  /** @default 64 (the client's connection pool) */
  max?: number;
  /** Clock in ms; injected by tests. @default performance.now */
  now?: () => number;
}

interface Waiter {
  grant(permit: Permit): void;
}

/**
 * The client's one limit on jobs running at once, shared by `generateBatch`, `generateLong` and
 * `createAndWait`/`generate`: a permit is held from a job's create to its end. The limit itself comes
 * from the pure policy in adaptive-concurrency.ts; this class only queues, counts and keeps time.
 * @internal
 */
export class ConcurrencyLimiter {
  #state: ConcurrencyState;
  readonly #bounds: ConcurrencyBounds;
  readonly #now: () => number;
  #inFlight = 0;
  /** Permits whose create the service accepted: jobs known to run (the others are still being created). */
  #accepted = 0;
  readonly #waiters: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: LimiterOptions = {}) {
    this.#bounds = { min: options.min ?? 1, max: options.max ?? 64 };
    this.#state = initialConcurrency(Math.min(this.#bounds.max, Math.max(this.#bounds.min, options.initial ?? 2)));
    this.#now = options.now ?? (() => performance.now());
  }

  /** Jobs allowed at once right now (0 during a Retry-After pause). */
  get limit(): number {
    return allowedConcurrency(this.#state, this.#now());
  }

  /** Smoothed time from a job's create to its end, in ms, once a job has ended. */
  get jobMs(): number | undefined {
    return this.#state.jobMs;
  }

  /** The limiter's clock, in ms: `startedAt` of {@link throttled} is read from it. */
  now(): number {
    return this.#now();
  }

  /** Jobs holding a permit. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** A permit once the limit has room, in arrival order. Rejects with APIUserAbortError if `signal` fires first. */
  acquire(signal?: AbortSignal): Promise<Permit> {
    if (signal?.aborted) return Promise.reject(new APIUserAbortError('Aborted while waiting for a job slot.', { cause: signal.reason }));
    return new Promise<Permit>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(new APIUserAbortError('Aborted while waiting for a job slot.', { cause: signal?.reason }));
      };
      const waiter: Waiter = {
        grant: (permit) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(permit);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /** A permit at once, above the limit if need be: for a job that already runs (one resumed from a ledger). */
  adopt(): Permit {
    return this.#permit();
  }

  /** Resolves once no Retry-After pause is in force (for callers running a fixed number of jobs). */
  async paused(signal?: AbortSignal): Promise<void> {
    for (let left = this.#state.pausedUntil - this.#now(); left > 0; left = this.#state.pausedUntil - this.#now()) {
      await sleep(Math.ceil(left), signal, 'Aborted while waiting out a Retry-After.');
    }
  }

  /** The service accepted a create: counts as proof that the jobs known to run fit. */
  admitted(): void {
    this.#accepted = Math.min(this.#accepted + 1, this.#inFlight);
    this.#apply({ type: 'admitted', at: this.#now(), running: this.#accepted });
  }

  /** The service refused a create (a 429); `startedAt` is when that request began, on {@link now}'s clock. */
  throttled(retryAfterMs: number | undefined, startedAt = this.#now()): void {
    this.#apply({ type: 'throttled', cause: 'refused', at: this.#now(), startedAt, running: this.#inFlight, retryAfterMs });
  }

  #permit(): Permit {
    this.#inFlight += 1;
    const startedAt = this.#now();
    let released = false;
    return {
      startedAt,
      release: (outcome, retryAfterMs) => {
        if (released) return;
        released = true;
        const running = this.#inFlight;
        this.#inFlight -= 1;
        // A job that ended was accepted; one released otherwise may not have been.
        this.#accepted = outcome === 'unknown' ? Math.min(this.#accepted, this.#inFlight) : Math.max(0, this.#accepted - 1);
        if (outcome === 'completed') this.#apply({ type: 'completed', at: this.#now(), startedAt });
        else if (outcome === 'throttled')
          this.#apply({ type: 'throttled', cause: 'failed', at: this.#now(), startedAt, running, retryAfterMs });
        else this.#pump();
      },
    };
  }

  #apply(event: ConcurrencyEvent): void {
    this.#state = nextConcurrency(this.#state, event, this.#bounds);
    this.#pump();
  }

  /** Grant waiting permits while there is room; during a pause, come back when it ends. */
  #pump(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const now = this.#now();
    while (this.#waiters.length > 0 && this.#inFlight < allowedConcurrency(this.#state, now)) {
      (this.#waiters.shift() as Waiter).grant(this.#permit());
    }
    if (this.#waiters.length > 0 && now < this.#state.pausedUntil) {
      this.#timer = setTimeout(() => this.#pump(), Math.ceil(this.#state.pausedUntil - now));
    }
  }
}
