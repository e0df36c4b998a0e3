import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { APIConnectionError, APIError, AvatarVideoError, DownloadIntegrityError, VideoNotReadyError } from '../errors.js';
import { type AtomicFile, writeFileAtomic } from '../internal/atomic-file.js';
import { deprecatedOption } from '../internal/deprecated.js';
import { diskError } from '../internal/disk-error.js';
import { header, requestId } from '../internal/headers.js';
import { chunksOf } from '../internal/http-client.js';
import type { RequestOptions } from '../internal/request-options.js';
import { retryDelay } from '../internal/retry.js';
import { shorten } from '../internal/shorten.js';
import { sleep } from '../internal/sleep.js';
import type { Video } from '../schemas.js';
import type { Endpoints, JobContext, StreamedAnswer } from './endpoints.js';
import { namingJob, nextCall } from './job-error.js';
import { checkWholeMp4 } from './media/isobmff.js';
import { ByteReader } from './media/reader.js';
import { type DownloadTrace, traceDownload } from './tracing.js';

export interface DownloadProgress {
  /** Bytes written so far. Drops back to 0 if the download has to start over. */
  bytes: number;
  /** Size of the file, when the server said. */
  total: number | undefined;
}

/**
 * A download's body that sends nothing for a quarter of the request's `timeout`, and at most this long, is given up
 * and resumed: a stalled file host costs seconds, not the whole timeout.
 */
const MAX_BODY_IDLE = 15_000;

/** How long a download's body may send nothing before it is given up and resumed. */
export const bodyIdleLimit = (timeout: number) => Math.min(MAX_BODY_IDLE, Math.ceil(timeout / 4));

export interface DownloadOptions extends Pick<RequestOptions, 'signal' | 'timeout' | 'maxRetries'> {
  /** The bytes saved so far and the file's size, after each chunk is written; keep it cheap. @default undefined */
  onDownloadProgress?: ((progress: DownloadProgress) => void) | undefined;
  /** @deprecated Use `onDownloadProgress` (the same callback); it logs a warning once. @default undefined */
  onProgress?: ((progress: DownloadProgress) => void) | undefined;
  /**
   * How many times in a row a failed transfer (a dropped or stalled body, an answer that is not the video)
   * may be tried again without getting further than before; a transfer that brings new bytes resets the
   * count. 0 turns resuming and restarting off. A body counts as stalled once it sends nothing for a quarter of
   * `timeout`, at most 15 s (with the default 60 s `timeout`, 15 s).
   * @default 5
   */
  maxResumes?: number | undefined;
}

export interface DownloadResult {
  /** Absolute path of the saved file. */
  path: string;
  bytes: number;
  contentType: string | undefined;
}

/**
 * What a first answer proved about the file. A resume asks for exactly this representation with `If-Range`
 * and accepts only a 206 that carries the same validator and a `Content-Range` that continues it; without
 * a proof, a failed transfer starts over.
 */
interface Proof {
  /** Where the bytes came from after redirects: resumes go straight there. */
  url: URL;
  total: number;
  /** A strong ETag, or else Last-Modified. */
  validator: string;
  /** The header the validator came from, which each 206 must repeat. */
  source: 'etag' | 'last-modified';
}

/** What is known of the transfer in progress. */
interface Transfer {
  readonly api: DownloadPort;
  readonly context: DownloadContext;
  readonly id: string;
  readonly file: AtomicFile;
  readonly options: DownloadOptions;
  proof?: Proof | undefined;
  total?: number | undefined;
  contentType?: string | undefined;
  requestId?: string | undefined;
  /** The download's trace payload, whose counts `transfer` keeps. */
  readonly trace: DownloadTrace;
  /** The failure the next answer goes on from, logged once that answer shows a resume or a restart. */
  setback?: AvatarVideoError | undefined;
}

/** What a download uses of the endpoints, and of the client's context. */
type DownloadPort = Pick<Endpoints, 'retrieve' | 'openContent' | 'openFile' | 'retryingReads'>;
type DownloadContext = Pick<JobContext, 'logger' | 'timeout' | 'maxRetryDelay'>;

/** @internal Use `client.videos.download`. */
export async function downloadVideo(
  api: DownloadPort,
  context: DownloadContext,
  video: string | Video,
  destination: string,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const id = typeof video === 'string' ? video : video.id;
  const onDownloadProgress = deprecatedOption(options, 'onProgress', 'onDownloadProgress', context.logger);
  return traceDownload(id, (trace) => saveVideo({ api, context }, video, id, destination, { ...options, onDownloadProgress }, trace));
}

async function saveVideo(
  { api, context }: { api: DownloadPort; context: DownloadContext },
  video: string | Video,
  id: string,
  destination: string,
  options: DownloadOptions,
  trace: DownloadTrace,
) {
  const current = typeof video === 'object' && video.status === 'COMPLETE' ? video : (await api.retrieve(id, options)).data;
  if (current.status !== 'COMPLETE') throw new VideoNotReadyError(current);

  const path = resolve(destination);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new AvatarVideoError(`Cannot download to ${shorten(path)}: it is a directory.`);

  try {
    return await writeFileAtomic(path, async (file) => {
      const state: Transfer = { api, context, id, file, options, trace };
      await transfer(state);
      await verify(state);
      trace.bytes = file.size;
      return { path, bytes: file.size, contentType: state.contentType };
    });
  } catch (error) {
    throw diskError(atFileHost(error, id), path);
  }
}

/** A file host's failure names the video (paid for, and COMPLETE) and the call that saves it. */
function atFileHost(error: unknown, id: string): unknown {
  const fileHost = (error instanceof APIError || error instanceof APIConnectionError) && error.origin === 'file-host';
  return fileHost ? namingJob(error, id, nextCall(id, 'complete')) : error;
}

/** Fill the file with the video's bytes: resume a dropped transfer when the first answer proved the file, else start over. */
async function transfer(state: Transfer): Promise<void> {
  const maxResumes = state.options.maxResumes ?? 5;
  let furthest = 0;
  let setbacks = 0; // since the transfer last got further
  for (;;) {
    const failure = await pass(state);
    if (!failure) return;
    if (state.file.size > furthest) {
      furthest = state.file.size;
      setbacks = 0;
    }
    if (++setbacks > maxResumes) throw failure;
    state.setback = failure;
    // The first try after progress goes at once; repeated ones back off like request retries.
    if (setbacks > 1) {
      const delay = retryDelay(setbacks - 1, undefined, { maxRetryDelay: state.context.maxRetryDelay }) ?? 0;
      await sleep(delay, state.options.signal);
    }
  }
}

/**
 * One request and its body. Resolves with nothing when the file is complete, or with the setback to try
 * again after (a dropped body, an answer that is not the video); throws anything else.
 */
async function pass(state: Transfer): Promise<AvatarVideoError | undefined> {
  const response = await open(state);
  try {
    await accept(response, state);
  } catch (error) {
    response.release();
    if (!(error instanceof DownloadIntegrityError)) throw error;
    state.proof = undefined;
    return error;
  }
  const dropped = await write(response, state);
  if (dropped) return dropped;
  if (state.total === undefined || state.file.size === state.total) return undefined;
  return new APIConnectionError(`The response ended at byte ${state.file.size} of ${state.total}.`);
}

/** Tell the log how the transfer goes on after its last setback, once the answer shows it; count it on the trace. */
function goOn(state: Transfer, resumed: boolean): void {
  const { setback } = state;
  if (!setback) return;
  state.setback = undefined;
  if (resumed) state.trace.resumes++;
  else state.trace.restarts++;
  const reason = /[.!?]$/.test(setback.message) ? setback.message : `${setback.message}.`;
  // A proof means a range was asked for: a 200 then is the host sending the whole file again.
  const how = resumed
    ? `Resuming at byte ${state.file.size}.`
    : state.proof
      ? 'The file host sent the whole file again: restarting from byte 0.'
      : 'Restarting from byte 0.';
  state.context.logger.info(`download of video ${state.id}: ${reason} ${how}`);
}

/** Open the content: from the API without a proof, else straight from the file's address with a guarded range. */
function open(state: Transfer): Promise<StreamedAnswer> {
  const { api, context, options, proof } = state;
  const { timeout, signal } = options;
  const idleTimeout = bodyIdleLimit(timeout ?? context.timeout);
  return api.retryingReads(options, async (attempt) => {
    if (!proof) return api.openContent(state.id, { timeout, idleTimeout, signal, attempt });
    const range = { range: `bytes=${state.file.size}-`, 'if-range': proof.validator };
    const guarded = { timeout, idleTimeout, signal, attempt, headers: range };
    try {
      return await api.openFile(proof.url, guarded);
    } catch (error) {
      if (!(error instanceof APIError && signedURLExpired(error.status))) throw error;
      // The signed address has likely expired: ask the API for a fresh one, same guarded range.
      return api.openContent(state.id, guarded);
    }
  });
}

/** A 4xx from the file host, other than the ones worth retrying as they are. */
const signedURLExpired = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

/** A type that says the body is a document (an error page, a JSON answer), not a video. */
const NOT_VIDEO = /^\s*(application\/(?:[\w.+-]*\+)?json|text\/|application\/xhtml)/i;

/** Check an answer against what we have: a 200 starts the file over, a 206 must continue it exactly. */
async function accept(response: StreamedAnswer, state: Transfer): Promise<void> {
  const contentType = header(response.headers, 'content-type');
  state.requestId = requestId(response.headers) ?? state.requestId;
  const broken = (reason: string) => integrityError(state, reason);
  if (contentType && NOT_VIDEO.test(contentType)) throw broken(`the answer's content type ${contentType} is not a video`);
  if (response.status === 206 && state.proof) {
    // A host that ignores If-Range answers with whatever it has now: its validator tells, not its range.
    // String equality is the strong comparison here: the proof is never weak, so `W/` on the 206 differs.
    const { source, validator } = state.proof;
    const carried = header(response.headers, source);
    if (carried !== validator) {
      throw broken(`the 206 carries ${source} ${carried ?? '(none)'}, not the first answer's ${validator}: another representation`);
    }
    const range = header(response.headers, 'content-range');
    if (!continues(range, state.file.size, state.proof.total)) {
      throw broken(`Content-Range ${JSON.stringify(range)} does not continue byte ${state.file.size} of ${state.proof.total}`);
    }
    state.proof.url = response.url;
    goOn(state, true);
    return;
  }
  if (response.status !== 200) throw broken(`unexpected ${response.status} answer`);
  goOn(state, false);
  if (state.file.size > 0) await state.file.truncate();
  const length = Number(header(response.headers, 'content-length'));
  const total = Number.isSafeInteger(length) && length >= 0 ? length : undefined;
  const etag = header(response.headers, 'etag');
  const source = etag && !etag.startsWith('W/') ? 'etag' : 'last-modified';
  const validator = header(response.headers, source);
  state.total = total;
  state.contentType = contentType;
  state.proof = total !== undefined && validator ? { url: response.url, total, validator, source } : undefined;
}

/** Whether a `Content-Range` value starts at `offset` and names `total` as the size. */
function continues(value: string | undefined, offset: number, total: number): boolean {
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value?.trim() ?? '');
  if (!range) return false;
  const [first, last, size] = [Number(range[1]), Number(range[2]), Number(range[3])];
  return first === offset && last >= first && last < size && size === total;
}

/**
 * Write the body into the file as it arrives (see `AtomicFile.write`). Resolves with the connection error when
 * the body drops; rejects with a write (or `onDownloadProgress`) error.
 */
async function write(response: StreamedAnswer, state: Transfer): Promise<APIConnectionError | undefined> {
  const { file, options } = state;
  let writing = false;
  try {
    for await (const chunk of chunksOf(response.body)) {
      writing = true;
      await file.write(chunk);
      options.onDownloadProgress?.({ bytes: file.size, total: state.total });
      writing = false;
    }
  } catch (error) {
    if (writing) throw error;
    const mapped = response.fail(error);
    if (mapped instanceof APIConnectionError) return mapped;
    throw mapped;
  } finally {
    response.done();
  }
  await file.drain();
  return undefined;
}

/** The last word before the rename: the announced size, and an MP4 whose top-level boxes add up. */
async function verify(state: Transfer): Promise<void> {
  const { file } = state;
  if (state.total !== undefined && file.size !== state.total) throw integrityError(state, `received ${file.size} bytes of ${state.total}`);
  await file.drain();
  try {
    await checkWholeMp4(new ByteReader(file));
  } catch (error) {
    throw integrityError(state, `the file is not a whole MP4: ${(error as Error).message}`);
  }
}

function integrityError(state: Transfer, reason: string): DownloadIntegrityError {
  return new DownloadIntegrityError({ reason, videoId: state.id, requestId: state.requestId });
}
