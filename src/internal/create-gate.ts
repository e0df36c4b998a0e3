import { abortError } from './abort.js';
import { whenAborted } from './abort-listener.js';
import { initialPacing, nextCreateAt, nextPacing, type PacingState, rateInForce, relaxed } from './create-pacing.js';
import type { CreateRate } from './create-rate.js';

/** The state of a client's create-rate gate: `client.createRate`. */
export interface CreateRateState {
  /** Where the rate in force comes from: declared (option, AVATAR_VIDEO_CREATE_RATE, --create-rate), learned from 429s, or none known yet. */
  source: 'declared' | 'learned' | 'none';
  /** The rate in force, when one is known. */
  rate: CreateRate | undefined;
  /** Creates waiting at the gate now. */
  waiting: number;
  /** The earliest the next create may go, when the gate holds creates back now. */
  nextCreateAt: Date | undefined;
}

/** How a create let out by the gate was answered. */
export type CreateAnswer = 'accepted' | 'throttled' | 'released' | 'unknown';

/** A create let out by the gate: told its answer once. */
export interface CreateTicket {
  /** The create probes the window of a rate being learned: a refusal is expected, and about the window alone. */
  readonly probe: boolean;
  /**
   * The create's answer: `accepted`; `throttled` (429, with the server's Retry-After in ms); `released` (refused
   * otherwise, or never sent: it made no job); `unknown` (it may have made a job).
   */
  settle(answer: CreateAnswer, retryAfterMs?: number): void;
}

interface GateOptions {
  /** The rate the user declared; without it the gate learns from 429s. */
  declared?: CreateRate | undefined;
  /** Clock in ms. @default performance.now */
  now?: () => number;
}

interface Waiter {
  grant(ticket: CreateTicket): void;
}

/**
 * The client's one gate in front of creates: each create waits here (first in, first out) until the pacing policy
 * of create-pacing.ts lets it go, then tells the gate its answer. This class only queues and keeps time.
 * @internal
 */
export class CreateGate {
  #state: PacingState;
  readonly #now: () => number;
  #waiters: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt: number | undefined;
  #ids = 0;

  constructor(options: GateOptions = {}) {
    this.#state = initialPacing(options.declared);
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Wait until a create may go; resolves with its ticket, to be settled with the create's answer.
   * @throws APIUserAbortError (saying `what` was aborted) if `signal` fires while it waits.
   */
  take(signal: AbortSignal | undefined, what: string): Promise<CreateTicket> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal, what));
      const forget = whenAborted(signal, () => {
        this.#waiters = this.#waiters.filter((other) => other !== waiter);
        reject(abortError(signal, what));
        this.#pump();
      });
      const waiter: Waiter = {
        grant: (ticket) => {
          forget();
          resolve(ticket);
        },
      };
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /**
   * Milliseconds from now until the next create may go, as the gate has learned it (a create on the wire still to
   * answer counts a window); undefined when it holds nothing back: what a refused create's caller is told.
   */
  get waitMs(): number | undefined {
    const now = this.#now();
    const at = nextCreateAt(this.#state, now) ?? now + (rateInForce(this.#state)?.windowMs ?? 0);
    const ms = Math.round(at - now);
    return ms > 0 ? ms : undefined;
  }

  /** What `client.createRate` shows. */
  snapshot(): CreateRateState {
    const now = this.#now();
    const state = relaxed(this.#state, now);
    const rate = rateInForce(state);
    const source = state.declared ? 'declared' : rate ? 'learned' : 'none';
    const at = this.#waiters.length > 0 ? nextCreateAt(state, now) : undefined;
    return {
      source,
      rate: rate ? { limit: rate.limit, windowSeconds: rate.windowMs / 1000 } : undefined,
      waiting: this.#waiters.length,
      nextCreateAt: at !== undefined && at > now ? new Date(Date.now() + (at - now)) : undefined,
    };
  }

  #ticket(): CreateTicket {
    const id = ++this.#ids;
    this.#state = nextPacing(this.#state, { type: 'sent', id, at: this.#now() });
    let settled = false;
    return {
      probe: this.#state.creates.at(-1)?.probeMs !== undefined,
      settle: (answer, retryAfterMs) => {
        if (settled) return;
        settled = true;
        const at = this.#now();
        this.#state = nextPacing(
          this.#state,
          answer === 'throttled' ? { type: 'throttled', id, at, retryAfterMs } : { type: answer, id, at },
        );
        this.#pump();
      },
    };
  }

  /** Let waiting creates go in order while the policy allows; else wake when it will. */
  #pump(): void {
    const now = this.#now();
    this.#state = relaxed(this.#state, now);
    let at = nextCreateAt(this.#state, now);
    while (this.#waiters.length > 0 && at !== undefined && at <= now) {
      this.#waiters.shift()?.grant(this.#ticket());
      at = nextCreateAt(this.#state, now);
    }
    if (this.#waiters.length === 0 || at === undefined) {
      this.#clearTimer();
      return;
    }
    if (this.#timerAt === at) return;
    this.#clearTimer();
    this.#timerAt = at;
    this.#timer = setTimeout(
      () => {
        this.#timerAt = undefined;
        this.#pump();
      },
      Math.ceil(at - now),
    );
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = undefined;
  }
}
