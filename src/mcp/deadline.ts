import { AFTER_WAIT_SECONDS } from './budget.js';
import type { Call } from './context.js';

/**
 * Where one call's job stands, each with its own end: `queued` (no job in hand: waiting for a place under the
 * client's limit, or before a job is made again) until the time kept for saving, `running` until the call's wait is
 * over, `sending` (a create on its way) and `saving` (COMPLETE, downloading) until the call's end.
 */
export type JobPhase = 'queued' | 'sending' | 'running' | 'saving';

/**
 * The deadline of a job run inside one tool call: `signal` fires when the phase the run is in has no time left. A
 * create on its way is cut only at the call's end (the client would cut the call then): its answer names the job the
 * call pays for, so the stop for the wait waits for it.
 */
export class JobDeadline {
  readonly #stop = new AbortController();
  readonly #call: Call;
  #timer: NodeJS.Timeout | undefined;
  #phase: JobPhase = 'queued';
  /** What the run's signal fires on: the client's cancel, or this deadline. */
  readonly signal: AbortSignal;
  /** The phase the deadline stopped the run in; undefined while it has not. */
  stoppedIn: JobPhase | undefined;

  constructor(call: Call, phase: JobPhase) {
    this.#call = call;
    this.signal = AbortSignal.any([call.signal, this.#stop.signal]);
    this.enter(phase);
  }

  get phase(): JobPhase {
    return this.#phase;
  }

  /** The run moved to `phase`: the end it is held to is that phase's. */
  enter(phase: JobPhase): void {
    if (phase === this.#phase && this.#timer !== undefined) return;
    this.#phase = phase;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.stoppedIn) return;
    const left = this.#leftMs(phase);
    if (left <= 0) this.#fire();
    else this.#timer = setTimeout(() => this.#fire(), left).unref();
  }

  close(): void {
    clearTimeout(this.#timer);
  }

  #leftMs(phase: JobPhase): number {
    if (phase === 'running') return this.#call.leftMs('waitMs');
    if (phase === 'sending') return this.#call.leftMs('callMs');
    if (phase === 'saving') return Math.max(1000, this.#call.leftMs('callMs'));
    return this.#call.leftMs('callMs') - AFTER_WAIT_SECONDS * 1000;
  }

  #fire(): void {
    this.stoppedIn = this.#phase;
    this.#stop.abort(new Error(`the call's time for a ${this.#phase} job is up`));
  }
}
