import { APIError, APIUserAbortError, AvatarVideoError } from '../errors.js';
import type { Transport } from '../internal/http-client.js';
import { apiPath } from '../internal/path.js';
import { parseRetryAfter, shouldRetry } from '../internal/retry.js';
import { sleep } from '../internal/sleep.js';
import { describeFailure, header, type RawResponse } from '../internal/transport.js';
import { type Video, VideoSchema } from '../schemas.js';
import { VideoCancelledError, VideoFailedError, WaitTimeoutError } from './errors.js';

/** Options of `videos.waitForCompletion` and of the helpers built on it. */
export interface WaitOptions {
  /** Delay before the second poll, in ms. Later delays grow by half each time, up to `maxPollInterval`. @default 2000 */
  pollInterval?: number;
  /** Longest computed delay between polls, in ms. A server hint (`Retry-After`) may ask for longer. @default 10000 */
  maxPollInterval?: number;
  /** Give up after this many ms with `WaitTimeoutError`; the job keeps running on the service. @default 600000 (10 minutes) */
  timeout?: number;
  /** Stops the wait at once, during a poll or a sleep, with `APIUserAbortError`. @default undefined */
  signal?: AbortSignal;
  /**
   * Called with the video when it is first seen and whenever its status or progress changes.
   * An exception thrown here ends the wait with that exception.
   * @default undefined
   */
  onProgress?: (video: Video) => void;
}

/** Headers a server may use to say when to poll again (delay-seconds or an HTTP-date). */
const POLL_HINT_HEADERS = ['retry-after', 'x-poll-after'];
/** Each computed delay is this much longer than the previous one. */
const BACKOFF_FACTOR = 1.5;
/** Computed delays are shortened by up to this fraction, so many waits started together drift apart. */
const JITTER = 0.25;
/** Server hints are stretched by up to this fraction, so jobs given the same hint do not poll in step. */
const HINT_JITTER = 0.1;

/**
 * Milliseconds until the next poll. A server hint wins over the backoff (but never polls sooner than
 * `pollInterval`); a computed delay only ever shrinks under jitter, so it never exceeds `maxPollInterval`.
 * @internal
 */
export function nextPollDelay(interval: number, hint: number | undefined, pollInterval: number, random = Math.random): number {
  if (hint !== undefined) return Math.round(Math.max(hint, pollInterval) * (1 + HINT_JITTER * random()));
  return Math.round(interval * (1 - JITTER * random()));
}

/** @internal The first poll hint found in response headers, in ms. */
export function pollHint(headers: RawResponse['headers'] | Record<string, string>): number | undefined {
  for (const name of POLL_HINT_HEADERS) {
    const hint = parseRetryAfter(header(headers, name));
    if (hint !== undefined) return hint;
  }
  return undefined;
}

/** Longest delay a Node timer accepts (about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function positive(value: number, name: string): number {
  if (!(value > 0 && value <= MAX_TIMER_MS)) {
    throw new AvatarVideoError(`${name} must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${value}.`);
  }
  return value;
}

/**
 * Poll a job until it is COMPLETE (returned), FAILED or CANCELLED (thrown), or the deadline passes.
 * `initial` is a video already in hand (from create): it counts as the first poll.
 * @internal Use `client.videos.waitForCompletion`.
 */
export async function waitForVideo(client: Transport, id: string, options: WaitOptions = {}, initial?: Video): Promise<Video> {
  const pollInterval = positive(options.pollInterval ?? 2_000, 'pollInterval');
  const maxPollInterval = Math.max(positive(options.maxPollInterval ?? 10_000, 'maxPollInterval'), pollInterval);
  const timeout = positive(options.timeout ?? 600_000, 'timeout');
  const { signal, onProgress } = options;
  if (signal?.aborted) throw new APIUserAbortError('Wait was aborted.', { cause: signal.reason });

  // One controller per wait (not per poll): it fires at the deadline or when the caller aborts, and
  // stops whatever is running then: the poll, the core's retry sleep, or our own sleep.
  const deadline = performance.now() + timeout;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('wait deadline')), timeout);
  const forwardAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', forwardAbort, { once: true });

  let last: Video | undefined;
  let lastError: unknown;
  const interrupted = (error: unknown): never => {
    if (signal?.aborted)
      throw error instanceof APIUserAbortError ? error : new APIUserAbortError('Wait was aborted.', { cause: signal.reason });
    if (controller.signal.aborted) throw new WaitTimeoutError(id, last, timeout, { cause: lastError });
    throw error;
  };

  try {
    let fresh = initial;
    let seen: string | undefined;
    let interval = pollInterval;
    let hint: number | undefined;
    for (let round = 0; ; round++) {
      if (fresh) {
        last = fresh;
        const state = `${fresh.status}/${fresh.progress ?? ''}`;
        if (state !== seen) {
          seen = state;
          onProgress?.(fresh);
        }
        if (fresh.status === 'COMPLETE') return fresh;
        if (fresh.status === 'FAILED') throw new VideoFailedError(fresh);
        if (fresh.status === 'CANCELLED') throw new VideoCancelledError(fresh);
        // PROCESSING, or a status this SDK does not know yet: keep polling with backoff.
      }
      // Without a video in hand, the first poll goes out at once.
      if (round > 0 || initial) {
        const delay = nextPollDelay(interval, hint, pollInterval);
        interval = Math.min(interval * BACKOFF_FACTOR, maxPollInterval);
        await sleep(Math.min(delay, deadline - performance.now()), controller.signal).catch(interrupted);
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new WaitTimeoutError(id, last, timeout, { cause: lastError });
      try {
        ({ video: fresh, hint } = await poll(client, id, controller.signal, Math.min(client.timeout, remaining)));
        lastError = undefined;
      } catch (error) {
        if (controller.signal.aborted) interrupted(error);
        // The core already retried this poll; a failure it calls transient (5xx, 429, a dropped
        // connection) must not end a wait that may last minutes. Anything else (401, 403, 404) does.
        if (!shouldRetry('read', describeFailure(error))) throw error;
        client.logger.info(`polling video ${id} failed (${(error as Error).message}); polling again`);
        lastError = error;
        fresh = undefined;
        hint = error instanceof APIError ? pollHint(error.headers) : undefined;
      }
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forwardAbort);
  }
}

/** One `retrieve`, also returning the server's hint for the next poll. */
async function poll(client: Transport, id: string, signal: AbortSignal, timeout: number) {
  let hint: number | undefined;
  const video = await client.request(
    {
      method: 'GET',
      path: apiPath`v1/videos/${id}`,
      kind: 'read',
      onHeaders: (headers) => {
        hint = pollHint(headers);
      },
    },
    VideoSchema,
    { signal, timeout },
  );
  return { video, hint };
}
