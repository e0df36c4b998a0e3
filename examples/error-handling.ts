/**
 * Handling each error class: what went wrong, and what your code can do about it. Every error the SDK
 * throws extends AvatarVideoError; the mock (`avatar-video/testing`) stages each one here.
 *
 *   npx tsx examples/error-handling.ts
 */
import AvatarVideo, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  AvatarVideoError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  MediaValidationError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  UnprocessableEntityError,
  VideoCancelledError,
  VideoFailedError,
  VideoNotReadyError,
  WaitTimeoutError,
} from 'avatar-video';
import { startMockServer } from 'avatar-video/testing';

/** What to do about an error. Order matters: subclasses before their parents. */
function advice(error: unknown): string {
  // Nothing was sent: the inputs are wrong. `issues` lists every problem.
  if (error instanceof MediaValidationError) return `fix the inputs: ${error.issues.map((issue) => issue.message).join('; ')}`;
  // The job ran and ended badly. Every HTTP request succeeded.
  if (error instanceof VideoFailedError)
    return error.isRateLimited ? 'the service stayed busy through every job made: create it again later' : `job failed: ${error.code}`;
  if (error instanceof VideoCancelledError) return 'the job was cancelled';
  if (error instanceof WaitTimeoutError) return `still ${error.video?.status ?? 'unknown'}: wait again later with id ${error.video?.id}`;
  if (error instanceof VideoNotReadyError) return `wait for ${error.video.id} to be COMPLETE before downloading`;
  // The service answered with an HTTP error; `requestId` is what support asks for.
  if (error instanceof RateLimitError) return `slow down; the service asked for ${error.retryAfter} ms (request ${error.requestId})`;
  if (error instanceof AuthenticationError) return 'check AVATAR_VIDEO_API_KEY';
  if (error instanceof PermissionDeniedError) return `this key may not do that (${error.code})`;
  if (error instanceof NotFoundError) return 'no such video: check the id';
  if (error instanceof ConflictError) return 'not yet: the video is not in a state that allows this';
  // `details` names each refused field, e.g. `body.model`, when the service listed them.
  if (error instanceof UnprocessableEntityError)
    return `fix ${error.details.map((detail) => `${detail.location} (${detail.message})`).join(', ') || `the input: ${error.message}`}`;
  if (error instanceof BadRequestError) return `the service refused the input (${error.code})`;
  if (error instanceof InternalServerError) return 'the service failed; a create is not retried, so check list() before creating again';
  if (error instanceof APIError) return `HTTP ${error.status} ${error.code}`;
  // No usable answer. Timeout before its parent, connection errors.
  if (error instanceof APIConnectionTimeoutError) return 'timed out: raise `timeout` or try again';
  if (error instanceof APIConnectionError) return `could not reach the service: ${(error.cause as Error | undefined)?.message}`;
  if (error instanceof APIUserAbortError) return 'you aborted it';
  if (error instanceof ResponseValidationError) return `the answer broke the contract: ${error.problems.join(', ')}`;
  if (error instanceof AvatarVideoError) return error.message;
  throw error; // not ours: a bug elsewhere
}

const media = new URL('./media/', import.meta.url);
const audio = new URL('speech.wav', media);
const image = new URL('portrait.png', media);
const mock = await startMockServer({ processingMs: 300 });
const noPreview = await startMockServer({ previewAccess: false });
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, maxRetryDelay: 1_000, logLevel: 'off' });
const processing = () => client.videos.create({ audio_reference: audio, image_reference: image });

const cases: Array<[expected: new (...args: never[]) => Error, trigger: () => Promise<unknown>]> = [
  [MediaValidationError, () => client.videos.create({ audio_reference: image, image_reference: image })],
  [AuthenticationError, () => new AvatarVideo({ apiKey: 'wrong', baseURL: mock.baseURL }).videos.retrieve('vid_1')],
  [NotFoundError, () => client.videos.retrieve('vid_does_not_exist')],
  [
    PermissionDeniedError,
    () =>
      new AvatarVideo({ apiKey: noPreview.apiKey, baseURL: noPreview.baseURL }).videos.create({
        audio_reference: audio,
        video_reference: new URL('presenter.mp4', media),
      }),
  ],
  [ConflictError, async () => client.videos.content((await processing()).id, { maxRetries: 0 })],
  [
    BadRequestError,
    () =>
      client.videos.create({ audio_reference: audio, image_reference: image, video_reference: new URL('presenter.mp4', media) } as never, {
        validate: false,
      }),
  ],
  [
    UnprocessableEntityError,
    () => client.videos.create({ audio_reference: audio, image_reference: image, model: 'no-such-model' }, { validate: false }),
  ],
  [
    RateLimitError,
    () => {
      // Longer than maxRetryDelay: thrown at once with retryAfter set, rather than sleeping two minutes.
      mock.failNext({ method: 'GET' }, { status: 429, headers: { 'retry-after': '120' } });
      return client.videos.retrieve('vid_1');
    },
  ],
  [
    InternalServerError,
    () => {
      mock.failNext({ method: 'POST' }, { status: 500 });
      return processing();
    },
  ],
  [
    VideoFailedError,
    () => {
      // A failure on the inputs: one for a rate limit (or a fault of the service) would be made again, up to maxJobAttempts.
      mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'no face in the image' } });
      return client.videos.createAndWait({ audio_reference: audio, image_reference: image }, { pollInterval: 100 });
    },
  ],
  [
    VideoCancelledError,
    () => {
      mock.enqueueOutcome({ status: 'CANCELLED' });
      return client.videos.createAndWait({ audio_reference: audio, image_reference: image }, { pollInterval: 100 });
    },
  ],
  [WaitTimeoutError, async () => client.videos.waitForCompletion((await processing()).id, { waitTimeout: 100, pollInterval: 50 })],
  [VideoNotReadyError, async () => client.videos.download((await processing()).id, 'never-written.mp4')],
  [APIConnectionError, () => new AvatarVideo({ apiKey: 'k', baseURL: 'http://127.0.0.1:9', maxRetries: 0 }).videos.retrieve('vid_1')],
  [APIUserAbortError, () => client.videos.retrieve('vid_1', { signal: AbortSignal.abort() })],
  [
    ResponseValidationError,
    () => {
      mock.failNext({ method: 'GET' }, { status: 200, body: { id: 42 } });
      return client.videos.retrieve('vid_1');
    },
  ],
];

try {
  for (const [expected, trigger] of cases) {
    const error = await trigger().then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(error instanceof expected)) throw new Error(`expected ${expected.name}, got ${String(error)}`, { cause: error });
    console.log(`${expected.name.padEnd(26)} -> ${advice(error)}`);
  }
} finally {
  await client.close();
  await Promise.all([mock.close(), noPreview.close()]);
}
