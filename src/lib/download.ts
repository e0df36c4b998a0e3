import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type AvatarVideo, type RequestOptions, sleep } from '../client.js';
import { APIConnectionError, AvatarVideoError } from '../errors.js';
import { type DirectResponse, directGet } from '../internal/direct-get.js';
import { apiPath } from '../internal/path.js';
import { followRedirects, withoutCredentials } from '../internal/redirect.js';
import { retryDelay } from '../internal/retry.js';
import { header, type SentResponse, throwForStatus, toConnectionError } from '../internal/transport.js';
import type { Video } from '../schemas.js';
import { VideoNotReadyError } from './errors.js';
import { TempFile } from './file-writer.js';

export interface DownloadProgress {
  /** Bytes written so far. Drops back to 0 if the server forces a restart. */
  bytes: number;
  /** Size of the file, when the server said. */
  total: number | undefined;
}

export interface DownloadOptions extends Pick<RequestOptions, 'signal' | 'timeout' | 'maxRetries'> {
  /** Called after each chunk is written; keep it cheap. @default undefined */
  onProgress?: (progress: DownloadProgress) => void;
  /**
   * How many times in a row a dropped transfer may be resumed without getting further than before
   * (a transfer that brings new bytes resets the count). 0 turns resuming off.
   * @default 5
   */
  maxResumes?: number;
}

export interface DownloadResult {
  /** Absolute path of the saved file. */
  path: string;
  bytes: number;
  contentType: string | undefined;
}

/** What the full (200) response told us about the file; resumes must match it. */
interface Source {
  /** Where the bytes came from after redirects: resumes go straight there. */
  url: URL;
  total: number | undefined;
  /** A strong ETag for `If-Range`; a weak one cannot guard a byte range. */
  etag: string | undefined;
  contentType: string | undefined;
}

/** @internal Use `client.videos.download`. */
export async function downloadVideo(
  client: AvatarVideo,
  video: string | Video,
  destination: string,
  options: DownloadOptions = {},
): Promise<DownloadResult> {
  const id = typeof video === 'string' ? video : video.id;
  const current = typeof video === 'object' && video.status === 'COMPLETE' ? video : await client.videos.retrieve(id, options);
  if (current.status !== 'COMPLETE') throw new VideoNotReadyError(current);

  const path = resolve(destination);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new AvatarVideoError(`Cannot download to ${path}: it is a directory.`);

  const file = await TempFile.create(path);
  try {
    const source = await transfer(client, id, file, options);
    await file.commit(path);
    return { path, bytes: file.size, contentType: source.contentType };
  } catch (error) {
    await file.discard();
    throw error;
  }
}

/**
 * An open response to read the file from: undici's, or one read on a socket of its own when it
 * comes from the file host (see internal/direct-get.ts for why).
 */
interface Opened {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  url: URL;
  /** Write the body into `file`. Rejects with an SDK connection error when it drops, or with a write (or `report`) error. */
  writeTo(file: TempFile, report: (() => void) | undefined): Promise<void>;
  /** Abandon the body. */
  discard(): Promise<void>;
}

/** Fill `file` with the video's bytes, resuming dropped transfers. */
async function transfer(client: AvatarVideo, id: string, file: TempFile, options: DownloadOptions): Promise<Source> {
  const { signal, onProgress } = options;
  const maxResumes = options.maxResumes ?? 5;
  const timeout = options.timeout ?? client.timeout;
  const secret = client.secret;
  const contentURL = client.url(apiPath`v1/videos/${id}/content`);
  const withKey = client.headers({ accept: 'video/mp4, */*' });
  const direct = (url: URL, headers: Record<string, string>) => directGet(url, headers, { timeout, signal, secret });
  const fromHost = async (url: URL, headers: Record<string, string>) => {
    const response = await direct(url, headers);
    return response.plain ? openedDirect(response) : undefined;
  };
  /** GET through the redirects; the file host's plain answer is read directly, anything else through undici. */
  const get = async (url: URL, headers: Record<string, string>): Promise<Opened> => {
    const response = await followRedirects(url, {
      dispatcher: client.dispatcher,
      headers,
      timeout,
      signal,
      secret,
      toOtherOrigin: fromHost,
    });
    if ('writeTo' in response) return response;
    return openedUndici(await throwForStatus(response, signal, secret), signal, secret);
  };

  /** Open the content at `offset`: from the API the first time, then straight from where the bytes came from. */
  const open = (source: Source | undefined, offset: number) =>
    client.withRetries('read', options, async () => {
      if (!source) return get(contentURL, withKey);
      const range: Record<string, string> = { range: `bytes=${offset}-`, ...(source.etag ? { 'if-range': source.etag } : {}) };
      // The file's host is another origin: it never gets the key.
      const sameOrigin = source.url.origin === contentURL.origin;
      const headers = { ...(sameOrigin ? withKey : withoutCredentials(withKey)), ...range };
      const fast = sameOrigin ? undefined : await direct(source.url, headers);
      if (fast?.plain) return openedDirect(fast);
      if (fast?.status === undefined || !signedURLExpired(fast.status)) {
        const response = await followRedirects(source.url, { dispatcher: client.dispatcher, headers, timeout, signal, secret });
        if (!signedURLExpired(response.status)) return openedUndici(await throwForStatus(response, signal, secret), signal, secret);
        await response.body.dump().catch(() => {});
        response.done();
      }
      // The signed URL has likely expired: ask the API for a fresh one, same range.
      return get(contentURL, { ...withKey, ...range });
    });

  let source: Source | undefined;
  let furthest = 0;
  let resumes = 0; // since the transfer last got further
  for (;;) {
    const response = await open(source, file.size);
    source = await accept(response, source, file);
    const report = onProgress && (() => onProgress({ bytes: file.size, total: source?.total }));
    const dropped = await response.writeTo(file, report).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof APIConnectionError) return error;
        throw error;
      },
    );
    if (source.total !== undefined && file.size > source.total) {
      throw new AvatarVideoError(`Received ${file.size} bytes for a file of ${source.total} bytes.`);
    }
    if (!dropped && (source.total === undefined || file.size === source.total)) return source;

    if (file.size > furthest) {
      furthest = file.size;
      resumes = 0;
    }
    if (++resumes > maxResumes) {
      throw dropped ?? new APIConnectionError(`The transfer stopped at byte ${file.size} of ${source.total}.`);
    }
    const why = dropped ? dropped.message : `the response ended at byte ${file.size}`;
    client.logger.info(`download of video ${id}: ${why}; resuming at byte ${file.size}`);
    // The first resume after progress goes at once; repeated ones back off like request retries.
    if (resumes > 1) await sleep(retryDelay(resumes - 1, undefined, { maxRetryDelay: client.maxRetryDelay }) ?? 0, signal);
  }
}

/** A 4xx from the file host, other than the ones worth retrying as they are. */
const signedURLExpired = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;

function openedDirect(response: DirectResponse): Opened {
  return {
    status: response.status,
    headers: response.headers,
    url: response.url,
    async writeTo(file, report) {
      await response.pipeTo((chunk) => {
        // The read buffer is reused once this returns: `true` makes a queued write keep a copy.
        const more = file.write(chunk, true);
        report?.();
        return more ? undefined : file.drain();
      });
      await file.drain();
    },
    async discard() {
      response.close();
    },
  };
}

function openedUndici(response: SentResponse, signal: AbortSignal | undefined, secret: string): Opened {
  return {
    status: response.status,
    headers: response.headers,
    url: response.url,
    writeTo: (file, report) => pump(response, file, report, signal, secret),
    async discard() {
      await response.body.dump().catch(() => {});
      response.done();
    },
  };
}

/** Check a response against what we have, starting over when the server sends the whole file. */
async function accept(response: Opened, source: Source | undefined, file: TempFile): Promise<Source> {
  const reject = async (message: string): Promise<never> => {
    await response.discard();
    throw new AvatarVideoError(message);
  };
  if (response.status === 200) {
    // First response, or the server ignored Range (or If-Range said the file changed): start over.
    if (file.size > 0) await file.truncate();
    const length = Number(header(response.headers, 'content-length'));
    const etag = header(response.headers, 'etag');
    return {
      url: response.url,
      total: Number.isSafeInteger(length) && length >= 0 ? length : undefined,
      etag: etag && !etag.startsWith('W/') ? etag : undefined,
      contentType: header(response.headers, 'content-type'),
    };
  }
  if (response.status !== 206 || !source) return reject(`Unexpected ${response.status} response while downloading.`);
  const value = header(response.headers, 'content-range');
  const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(value?.trim() ?? '');
  const first = Number(range?.[1]);
  const last = Number(range?.[2]);
  const size = range?.[3] === '*' ? undefined : Number(range?.[3]);
  const fits =
    first === file.size && last >= first && (size === undefined || last < size) && (source.total === undefined || size === source.total);
  if (!range || !fits) {
    return reject(`Content-Range ${JSON.stringify(value)} does not continue the download at byte ${file.size} of ${source.total ?? '?'}.`);
  }
  return { ...source, url: response.url, total: source.total ?? size };
}

/**
 * Write a response body into `file`. Resolves at the end of the body; rejects with an SDK connection
 * error when the body fails, or with the write (or `onProgress`) error.
 */
function pump(response: SentResponse, file: TempFile, report: (() => void) | undefined, signal: AbortSignal | undefined, secret: string) {
  const { body } = response;
  return new Promise<void>((resolve, reject) => {
    const stop = (error: unknown) => {
      body.destroy();
      reject(error);
    };
    // 'data' events rather than pipeline(): each chunk is written while still hot in the CPU cache.
    body.on('data', (chunk: Buffer) => {
      let more: boolean;
      try {
        more = file.write(chunk);
        report?.();
      } catch (error) {
        return stop(error);
      }
      if (!more) {
        body.pause();
        file.drain().then(() => body.resume(), stop);
      }
    });
    body.once('end', () => file.drain().then(resolve, reject));
    body.once('error', (error) => reject(toConnectionError(error, signal, response.timedOut(), secret)));
  }).finally(response.done);
}
