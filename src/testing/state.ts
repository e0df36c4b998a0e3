import { randomBytes } from 'node:crypto';
import { checkNoise, noisyProgress } from './progress.js';
import { seededRandom } from './seeded-random.js';

/**
 * The video object exactly as the mock returns it, every field of the spec present. `status` is a plain string so
 * tests can force unknown values.
 */
export interface MockVideo {
  id: string;
  object: 'video';
  status: string;
  created_at: number;
  completed_at: number | null;
  progress: number | null;
  error: { code: string; message: string } | null;
  model: string | null;
  generation_mode: 'image_to_video' | 'video_to_video' | null;
  aspect_ratio: '9:16' | '16:9' | null;
  source_video_id: string | null;
  caption_template_id: string | null;
  /**
   * Outside the spec, as the service's own docs show it: set once COMPLETE, absent before. It points at the reserved
   * `.invalid` domain: the mock serves no share page, the field is there to test that it reaches your code.
   */
  share_link_url?: string | undefined;
  video_id: string;
}

/** How a created job ends once its processing time has passed. */
export type MockOutcome = { status: 'FAILED'; error: { code: string; message: string } } | { status: 'CANCELLED' } | { status: 'COMPLETE' };

export interface FailureMatch {
  /** Case-insensitive; any method when absent. */
  method?: string | undefined;
  /** Exact pathname, or a RegExp tested against the pathname; any path when absent. */
  path?: RegExp | string | undefined;
}

export interface FailureReply {
  status: number;
  /**
   * Response headers. A 429 or 503 without `retry-after` gets `retry-after: <pollAfterMs / 1000>`, so the SDK's
   * retries against the mock are as quick as its polls (none when pollAfterMs is null).
   */
  headers?: Record<string, string> | undefined;
  /** JSON-encoded unless a string (sent as text/plain). Defaults to an error body for `status`. */
  body?: unknown;
  /** How many matching requests get this reply. Default 1. */
  times?: number | undefined;
}

export interface RecordedRequest {
  origin: 'api' | 'cdn';
  method: string;
  /** Pathname only, without the query string. */
  path: string;
  hasApiKey: boolean;
  apiKeyValid: boolean;
  /** Lower-cased names; the x-api-key value is replaced by '[redacted]'. */
  headers: Record<string, string>;
  /** Status of the mock's answer; undefined while the request is still being answered. */
  status?: number | undefined;
}

/** The mock's limit on the rate of creates (`createRate` of {@link MockStateOptions}). */
export interface MockCreateRate {
  /** Creates accepted in any window. */
  limit: number;
  /** The window's length, in seconds. */
  windowSeconds: number;
  /** Send `Retry-After` with the 429. @default false */
  retryAfter?: boolean | undefined;
}

/** @internal Why a create is refused now, and in how many ms it would not be. */
export type CreateRefusal = { cause: 'concurrency' | 'rate'; waitMs: number };

export interface MockStateOptions {
  /** The only key the mock accepts. @default 'test-key' */
  apiKey?: string | undefined;
  /** Whether the key may send video_reference. @default true */
  previewAccess?: boolean | undefined;
  /**
   * Time from create to the final state, in ms: one number for every job, or a function of the job's
   * index (0 for the first job created, counting again from 0 after `reset()`).
   * @default 1500
   */
  processingMs?: number | ((jobIndex: number) => number) | undefined;
  /**
   * The first part of each job's processing time spent QUEUED (progress null, the poll hint sent), as the service's
   * docs show some jobs before PROCESSING; progress then runs from 0 to 100 over the rest of `processingMs`. One
   * number for every job, or a function of the job's index; a value at least `processingMs` keeps a job QUEUED until
   * it ends.
   * @default 0
   */
  queuedMs?: number | ((jobIndex: number) => number) | undefined;
  /**
   * Poll hint sent with a video not yet final, QUEUED or PROCESSING (`x-poll-after`, in seconds), so an SDK wait
   * against the mock polls this often instead of every 2 s. `null` sends no hint, to exercise the SDK's own scheduling.
   * @default 50
   */
  pollAfterMs?: number | null | undefined;
  /**
   * How unevenly PROCESSING progress grows, from 0 (a straight line from 0 to 100 over processingMs) to 1
   * (the pace swings between stopped and twice the average). Deterministic per job index; progress never
   * goes back and still reaches 100 at processingMs (over the part after `queuedMs`).
   * @default 0
   */
  progressNoise?: number | undefined;
  /** 'manual': time moves only with advance(). @default 'real' */
  clock?: 'real' | 'manual' | undefined;
  /** Status of the content redirect. @default 302 */
  redirectStatus?: 301 | 302 | 303 | 307 | 308 | undefined;
  /** Content first redirects to another path on the API origin, then to the CDN. @default false */
  sameOriginHop?: boolean | undefined;
  /**
   * Jobs that may be running (QUEUED or PROCESSING) at once: a create beyond it answers 429 rate_limit_exceeded with a
   * `Retry-After` (fractional seconds) until the first running job ends.
   * @default Infinity (no limit)
   */
  concurrencyLimit?: number | undefined;
  /**
   * Creates the account may make in any window of time, as the service limits them (2 a minute per organization):
   * a create beyond `limit` accepted in the last `windowSeconds` answers 429 with the service's own body,
   * `{"error": {"type": "rate_limit_exceeded", "message": "Rate limit exceeded."}}`, and a `Retry-After` (seconds
   * until the oldest create leaves the window) only when `retryAfter` is true, since the service documents none.
   * Refused creates do not count against the window.
   * @default undefined (no limit on the rate of creates)
   */
  createRate?: MockCreateRate | undefined;
  /** Share (0 to 1) of jobs that end FAILED with the code rate_limit_exceeded instead of COMPLETE. @default 0 */
  rateLimitFailureRate?: number | undefined;
  /** Seed of the draws behind rateLimitFailureRate, for a repeatable run. @default a random seed */
  seed?: number | undefined;
}

interface Job {
  video: MockVideo;
  createdMs: number;
  outcome: MockOutcome;
  /** Position in creation order, counted from 0 (and again after reset()). */
  index: number;
  /** This job's time from create to its final state. */
  processingMs: number;
  /** The first part of processingMs the job shows QUEUED. */
  queuedMs: number;
  /** Fields forced by setVideo(); they win over the clock. */
  patch: Partial<MockVideo>;
  /** Duration of the uploaded audio: the finished video lasts as long. */
  audioSeconds: number;
  /** The finished video's bytes, rendered on first download. */
  output?: Promise<Uint8Array>;
}

/** `createRate` as the state keeps it: null for none; a limit that is not a positive whole number is a mistake. */
function checkCreateRate(rate: MockCreateRate | undefined): Required<MockCreateRate> | null {
  if (rate === undefined) return null;
  const { limit, windowSeconds, retryAfter = false } = rate;
  if (!Number.isInteger(limit) || limit < 1 || !(windowSeconds > 0) || !Number.isFinite(windowSeconds)) {
    throw new TypeError(
      `createRate must be { limit: a whole number of at least 1, windowSeconds: more than 0 }; got ${JSON.stringify(rate)}`,
    );
  }
  return { limit, windowSeconds, retryAfter };
}

/** `queuedMs` as given, a number refused unless finite and at least 0 (a function's answers are clamped per job). */
function checkQueuedMs(queuedMs: number | ((jobIndex: number) => number)): number | ((jobIndex: number) => number) {
  if (typeof queuedMs === 'function' || (Number.isFinite(queuedMs) && queuedMs >= 0)) return queuedMs;
  throw new TypeError(`queuedMs must be a number of milliseconds of at least 0, or a function of the job index; got ${queuedMs}`);
}

/** A per-job time option's value for the job at `index`. */
const forJob = (option: number | ((jobIndex: number) => number), index: number): number =>
  typeof option === 'function' ? option(index) : option;

export const randomId = (prefix: string): string => `${prefix}_${randomBytes(8).toString('hex')}`;

/**
 * Everything the mock remembers: its jobs, the requests it received, queued outcomes and injected failures. A
 * MockServer's `state` is the one it serves from; the server also hands out its controls.
 */
export class MockState {
  // Not Required<MockStateOptions>: under exactOptionalPropertyTypes that keeps each option's `| undefined`.
  /** The options in force: each one given, or its default. */
  options: { [Name in Exclude<keyof MockStateOptions, 'createRate'>]-?: Exclude<MockStateOptions[Name], undefined> } & {
    /** null: no limit on the rate of creates. */
    createRate: Required<MockCreateRate> | null;
  };
  /** Every request both origins received, oldest first. */
  readonly requests: RecordedRequest[] = [];
  // ES private fields: the published type shows none of their names.
  #creates = 0;
  #throttledCreates = 0;
  /** When each create the rate still counts was accepted (mock clock, ms), oldest first. */
  #acceptedAt: number[] = [];
  readonly #jobs = new Map<string, Job>(); // insertion order is creation order
  readonly #outcomes: MockOutcome[] = [];
  readonly #failures: Array<FailureMatch & FailureReply & { times: number }> = [];
  readonly #signatures = new Map<string, string>(); // sig -> video id
  readonly #startMs = Date.now();
  #offsetMs = 0;
  readonly #random: () => number;

  constructor(options: MockStateOptions = {}) {
    this.options = {
      apiKey: options.apiKey ?? 'test-key',
      previewAccess: options.previewAccess ?? true,
      processingMs: options.processingMs ?? 1500,
      queuedMs: checkQueuedMs(options.queuedMs ?? 0),
      pollAfterMs: options.pollAfterMs === undefined ? 50 : options.pollAfterMs,
      progressNoise: checkNoise(options.progressNoise ?? 0),
      clock: options.clock ?? 'real',
      redirectStatus: options.redirectStatus ?? 302,
      sameOriginHop: options.sameOriginHop ?? false,
      concurrencyLimit: options.concurrencyLimit ?? Number.POSITIVE_INFINITY,
      createRate: checkCreateRate(options.createRate),
      rateLimitFailureRate: options.rateLimitFailureRate ?? 0,
      seed: options.seed ?? randomBytes(4).readUInt32LE(0),
    };
    this.#random = seededRandom(this.options.seed);
  }

  /** Successful creates so far. */
  get creates(): number {
    return this.#creates;
  }

  /** Creates refused with 429: `concurrencyLimit` jobs were PROCESSING, or `createRate` creates were in its window. */
  get throttledCreates(): number {
    return this.#throttledCreates;
  }

  /**
   * @internal
   * Whether a create may start a job now: undefined if so, else why not and the milliseconds until it could (a
   * running job ends, or the oldest create leaves the rate's window). Call it right before createVideo, with no
   * await in between.
   */
  admit(): CreateRefusal | undefined {
    const now = this.now();
    const ends = [...this.#jobs.values()].map((job) => job.createdMs + job.processingMs).filter((end) => end > now);
    const refusal =
      ends.length >= this.options.concurrencyLimit
        ? { cause: 'concurrency' as const, waitMs: ends.reduce((soonest, end) => Math.min(soonest, end)) - now }
        : this.#rateRefusal(now);
    if (refusal !== undefined) this.#throttledCreates += 1;
    return refusal;
  }

  #rateRefusal(now: number): CreateRefusal | undefined {
    const rate = this.options.createRate;
    if (rate === null) return undefined;
    const windowMs = rate.windowSeconds * 1000;
    this.#acceptedAt = this.#acceptedAt.filter((at) => now - at < windowMs);
    if (this.#acceptedAt.length < rate.limit) return undefined;
    return { cause: 'rate', waitMs: (this.#acceptedAt[0] as number) + windowMs - now };
  }

  /** Milliseconds on the mock clock. */
  now(): number {
    return (this.options.clock === 'manual' ? this.#startMs : Date.now()) + this.#offsetMs;
  }

  /** Move the manual clock, or add an offset to the real one. */
  advance(ms: number): void {
    this.#offsetMs += ms;
  }

  /** The next created job ends this way instead of COMPLETE (first in, first out). */
  enqueueOutcome(outcome: MockOutcome): void {
    this.#outcomes.push(outcome);
  }

  /** Answer matching requests with `reply` before any other handling (auth included). */
  failNext(match: FailureMatch, reply: FailureReply): void {
    this.#failures.push({ ...match, ...reply, headers: this.#withRetryHint(reply), times: reply.times ?? 1 });
  }

  #withRetryHint({ status, headers = {} }: FailureReply): Record<string, string> {
    const { pollAfterMs } = this.options;
    const named = Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after');
    if (named || pollAfterMs === null || (status !== 429 && status !== 503)) return headers;
    return { ...headers, 'retry-after': String(pollAfterMs / 1000) };
  }

  /** @internal The first injected failure matching this request, used up by one. */
  takeFailure(method: string, path: string): FailureReply | undefined {
    const failure = this.#failures.find(
      (f) =>
        (f.method === undefined || f.method.toUpperCase() === method.toUpperCase()) &&
        (f.path === undefined || (typeof f.path === 'string' ? f.path === path : f.path.test(path))),
    );
    if (!failure) return undefined;
    failure.times -= 1;
    if (failure.times <= 0) this.#failures.splice(this.#failures.indexOf(failure), 1);
    return failure;
  }

  /** Add a job as a create would, without an upload. `audioSeconds` (default 1) is how long the finished video will be. */
  createVideo(fields: Pick<MockVideo, 'model' | 'generation_mode' | 'aspect_ratio'>, audioSeconds = 1): MockVideo {
    const id = randomId('vid');
    const createdMs = this.now();
    const video: MockVideo = {
      id,
      object: 'video',
      status: 'PROCESSING',
      created_at: Math.floor(createdMs / 1000),
      completed_at: null,
      progress: 0,
      error: null,
      ...fields,
      source_video_id: null,
      caption_template_id: null,
      video_id: id,
    };
    const index = this.#creates;
    const ms = forJob(this.options.processingMs, index);
    const queuedMs = Math.max(0, forJob(this.options.queuedMs, index));
    const outcome = this.#outcomes.shift() ?? this.#drawOutcome();
    this.#jobs.set(id, { video, createdMs, index, processingMs: ms, queuedMs, outcome, patch: {}, audioSeconds });
    this.#creates += 1;
    this.#acceptedAt.push(createdMs);
    return this.#view(id) as MockVideo;
  }

  /**
   * Forget every job, recorded request, queued outcome, injected failure and issued signature, as if
   * the mock had just started (the options and the clock stay as they are). Lets one server serve a
   * whole test file, reset in `beforeEach`.
   */
  reset(): void {
    this.requests.splice(0); // the same array: MockServer.requests points at it
    this.#creates = 0;
    this.#jobs.clear();
    this.#outcomes.splice(0);
    this.#failures.splice(0);
    this.#signatures.clear();
    this.#throttledCreates = 0;
    this.#acceptedAt = [];
  }

  /** A COMPLETE job's fields: its completion time, and the share link the service's docs show. */
  #completed(job: Job): Partial<MockVideo> {
    const completed_at = Math.floor((job.createdMs + job.processingMs) / 1000);
    return { status: 'COMPLETE', progress: 100, completed_at, share_link_url: `https://share.mock.invalid/videos/${job.video.id}` };
  }

  #drawOutcome(): MockOutcome {
    if (this.options.rateLimitFailureRate <= 0 || this.#random() >= this.options.rateLimitFailureRate) return { status: 'COMPLETE' };
    return { status: 'FAILED', error: { code: 'rate_limit_exceeded', message: 'Too many jobs at once; create this job again later.' } };
  }

  /** Force fields (e.g. `{ status: 'QUEUED' }`); they stay until patched again. Throws for an unknown id. */
  setVideo(id: string, patch: Partial<MockVideo>): void {
    const job = this.#jobs.get(id);
    if (!job) throw new Error(`No mock video ${id}`);
    job.patch = { ...job.patch, ...patch };
  }

  /** How long the uploaded audio of a job is, in seconds; undefined for an unknown id. */
  audioSeconds(id: string): number | undefined {
    return this.#jobs.get(id)?.audioSeconds;
  }

  /** @internal The job's finished file: `render()` runs once per job, later calls share its result. */
  output(id: string, render: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const job = this.#jobs.get(id);
    if (!job) return Promise.reject(new Error(`No mock video ${id}`));
    job.output ??= render();
    return job.output;
  }

  /** All videos, newest first. */
  listVideos(): MockVideo[] {
    return [...this.#jobs.keys()].reverse().map((id) => this.#view(id) as MockVideo);
  }

  /** @internal A one-off signature for a CDN URL of this video. */
  sign(id: string): string {
    const sig = randomBytes(12).toString('hex');
    this.#signatures.set(sig, id);
    return sig;
  }

  /** @internal Whether `sig` is a signature issued for this video. */
  verify(id: string, sig: string | null): boolean {
    return sig !== null && this.#signatures.get(sig) === id;
  }

  /** The video as of now on the mock clock, or undefined for an unknown id. */
  getVideo(id: string): MockVideo | undefined {
    return this.#view(id);
  }

  // getVideo() is what the routes call (tests spy on it to see a poll); the state's own reads go here.
  #view(id: string): MockVideo | undefined {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    const { processingMs, queuedMs } = job;
    const elapsed = this.now() - job.createdMs;
    // Progress runs over the part of the processing time after the queue.
    const share = (elapsed - queuedMs) / Math.max(processingMs - queuedMs, 1);
    const fraction = noisyProgress(share, this.options.progressNoise, job.index);
    const running = Math.max(0, Math.min(99, Math.floor(fraction * 100)));
    let live: Partial<MockVideo>;
    if (elapsed < Math.min(queuedMs, processingMs)) live = { status: 'QUEUED', progress: null };
    else if (elapsed < processingMs) live = { status: 'PROCESSING', progress: running };
    else if (job.outcome.status === 'COMPLETE') live = this.#completed(job);
    // A job that did not finish keeps the progress it reached (none if it never left the queue) and has no completion time.
    else live = { ...structuredClone(job.outcome), progress: queuedMs >= processingMs ? null : running };
    return { ...job.video, ...live, ...job.patch };
  }
}
