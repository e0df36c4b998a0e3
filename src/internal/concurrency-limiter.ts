import { abortError } from './abort.js';
import { whenAborted } from './abort-listener.js';
import {
  allowedConcurrency,
  type ConcurrencyBounds,
  type ConcurrencyEvent,
  type ConcurrencyState,
  initialConcurrency,
  nextConcurrency,
} from './adaptive-concurrency.js';
import { CONCURRENCY, checkArgument } from './arguments.js';

/** How a job ended, as the policy sees it; `unknown` teaches it nothing (an abort, a local error). */
export type JobOutcome = 'completed' | 'throttled' | 'unknown';

/**
 * A place of the limit, as its holder (the job runner) sees it: the one channel through which the limit hears what
 * happened to the job, from the create's answer to how the job ended.
 */
export interface JobPlace {
  /** The limiter's clock, in ms: `startedAt` of {@link throttled} is read from it. */
  now(): number;
  /** The service accepted the job's create: counts as proof that the jobs known to run fit. */
  admitted(): void;
  /** The service refused the job's create (a 429); `startedAt` is when that request began, on {@link now}'s clock. */
  throttled(retryAfterMs: number | undefined, startedAt?: number): void;
  /** How the job ended, told before the place is given back; a place given back untold teaches the policy nothing. */
  ended(outcome: JobOutcome): void;
}

/** The state of a client's limit on jobs running at once: `client.jobConcurrency`. */
export interface JobConcurrency {
  /**
   * Jobs that may run at once now: found by the client between 1 and 64 with `jobConcurrency: 'auto'`, else the
   * number given. Every job of the client counts, whichever method made it: this is the one limit.
   */
  limit: number;
  /** Jobs of this client holding a place: from the create (or the resume of a job already made) to the job's end. */
  running: number;
  /**
   * The last sign that the service had too many jobs: a create it refused with a 429 (`refused`), or a job that
   * FAILED with a rate-limit code (`failed`). New creates wait until `retryAfterMs` after `at` has passed.
   */
  lastThrottle?: { at: Date; cause: 'refused' | 'failed'; retryAfterMs?: number | undefined } | undefined;
}

interface LimiterOptions {
  /** `'auto'`: adapt between 1 and 64, starting at 2; a number fixes the limit. @default 'auto' */
  concurrency?: 'auto' | number;
  /** Clock in ms. @default performance.now */
  now?: () => number;
}

interface RunOptions {
  /** Stops the wait for a place (not the job: it has a signal of its own). */
  signal?: AbortSignal | undefined;
  /** The job's create already happened (a batch ledger or a long video's manifest names it). */
  resumed?: boolean | undefined;
}

type Release = (outcome: JobOutcome) => void;

/** An `'auto'` limit starts at 2 and stays below the client's connections per origin, which every job's polls share. */
const AUTO = { initial: 2, max: 64 };

/** A fixed `jobConcurrency` (`name` in the error) as bounds of the limit; undefined for `'auto'`. */
export function concurrencyBounds(value: 'auto' | number | undefined, name: string): ConcurrencyBounds | undefined {
  if (value === undefined || value === 'auto') return undefined;
  checkArgument('', name, value, CONCURRENCY);
  return { min: value, max: value };
}

/**
 * The client's one limit on jobs running at once, shared by batches, long videos and `createAndWait`: each job
 * runs through {@link run}, counted once here. The limit comes from the policy in adaptive-concurrency.ts; this
 * class only queues, counts and keeps time.
 * @internal
 */
export class ConcurrencyLimiter {
  #state: ConcurrencyState;
  /** Lowest and highest limit: 1 to 64 for `'auto'`, else the fixed number both. */
  readonly bounds: ConcurrencyBounds;
  readonly #now: () => number;
  #inFlight = 0;
  /** Places whose create the service accepted: jobs known to run (the others are still being created). */
  #accepted = 0;
  /** Grants of the places waited for, in arrival order. */
  #waiters: Array<(release: Release) => void> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastThrottle: JobConcurrency['lastThrottle'];

  constructor(options: LimiterOptions = {}) {
    const fixed = concurrencyBounds(options.concurrency, 'jobConcurrency');
    this.bounds = fixed ?? { min: 1, max: AUTO.max };
    this.#state = initialConcurrency(fixed?.max ?? AUTO.initial);
    this.#now = options.now ?? (() => performance.now());
  }

  /** Jobs allowed at once right now (0 during a Retry-After pause). */
  get limit(): number {
    return allowedConcurrency(this.#state, this.#now(), this.bounds);
  }

  /** Smoothed time from a job's create to its end, in ms, once a job has ended: re-creates are paced in it. */
  get jobMs(): number | undefined {
    return this.#state.jobMs;
  }

  /** What `client.jobConcurrency` shows. */
  snapshot(): JobConcurrency {
    // The limit itself, read at a time no Retry-After pause reaches: the pause shows in lastThrottle.
    const limit = allowedConcurrency(this.#state, Number.POSITIVE_INFINITY, this.bounds);
    return { limit, running: this.#inFlight, ...(this.#lastThrottle ? { lastThrottle: { ...this.#lastThrottle } } : {}) };
  }

  /**
   * Run `job` (a job's create and wait) once it has a place, in arrival order, handing it the place: the job tells
   * it of its create's answer and of how it ended, and the place is given back when `job` settles.
   * A resumed job takes its place at once, over the limit if need be: it already runs on the service, so holding
   * it back would only hide it from the count (and new creates would be refused).
   * @throws APIUserAbortError if `signal` fires while it waits for a place.
   */
  async run<T>(job: (place: JobPlace) => Promise<T>, options: RunOptions = {}): Promise<T> {
    const release = options.resumed ? this.#take(true) : await this.#place(options);
    let outcome: JobOutcome = 'unknown';
    const place: JobPlace = {
      now: this.#now,
      admitted: () => this.#admitted(),
      throttled: (retryAfterMs, startedAt = this.#now()) => this.#throttled(retryAfterMs, startedAt),
      ended: (told) => {
        outcome = told;
      },
    };
    try {
      return await job(place);
    } finally {
      release(outcome);
    }
  }

  #admitted(): void {
    this.#accepted = Math.min(this.#accepted + 1, this.#inFlight);
    this.#apply({ type: 'admitted', at: this.#now(), running: this.#accepted });
  }

  #throttled(retryAfterMs: number | undefined, startedAt: number): void {
    this.#apply({ type: 'throttled', cause: 'refused', at: this.#now(), startedAt, running: this.#inFlight, retryAfterMs });
  }

  #place({ signal }: RunOptions): Promise<Release> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal, 'The wait for a job slot'));
      const forget = whenAborted(signal, () => {
        this.#waiters = this.#waiters.filter((other) => other !== grant);
        reject(abortError(signal, 'The wait for a job slot'));
      });
      const grant = (release: Release) => {
        forget();
        resolve(release);
      };
      this.#waiters.push(grant);
      this.#pump();
    });
  }

  /** Count a place taken, and return its release. A resumed job's create was accepted long ago. */
  #take(resumed: boolean): Release {
    this.#inFlight += 1;
    if (resumed) this.#accepted += 1;
    const startedAt = this.#now();
    return (outcome) => {
      const running = this.#inFlight;
      this.#inFlight -= 1;
      // A job that ended was accepted; one released otherwise may not have been.
      this.#accepted = outcome === 'unknown' ? Math.min(this.#accepted, this.#inFlight) : Math.max(0, this.#accepted - 1);
      if (outcome === 'completed') this.#apply({ type: 'completed', at: this.#now(), startedAt });
      else if (outcome === 'throttled') this.#apply({ type: 'throttled', cause: 'failed', at: this.#now(), startedAt, running });
      else this.#pump();
    };
  }

  #apply(event: ConcurrencyEvent): void {
    if (event.type === 'throttled') this.#lastThrottle = { at: new Date(), cause: event.cause, retryAfterMs: event.retryAfterMs };
    this.#state = nextConcurrency(this.#state, event, this.bounds);
    this.#pump();
  }

  /** Grant waiting places in order while there is room; after a pause, again. */
  #pump(): void {
    clearTimeout(this.#timer);
    const now = this.#now();
    while (this.#waiters.length > 0 && this.#inFlight < allowedConcurrency(this.#state, now, this.bounds)) {
      this.#waiters.shift()?.(this.#take(false));
    }
    if (this.#waiters.length > 0 && now < this.#state.pausedUntil) {
      this.#timer = setTimeout(() => this.#pump(), Math.ceil(this.#state.pausedUntil - now));
    }
  }
}
