import { PassThrough, type Readable } from 'node:stream';
import type { Answer } from '../internal/api-promise.js';
import { header } from '../internal/headers.js';
import { apiPath } from '../internal/path.js';
import type { RequestOptions } from '../internal/request-options.js';
import type { SentResponse } from '../internal/send.js';
import type { HTTPPort, StreamOptions } from '../internal/transport.js';

/** The MP4 of a finished video, as a stream. */
export interface VideoContent {
  /** The file's bytes. Consume or destroy it: it holds a connection until then. */
  body: Readable;
  /** Size in bytes, when the server said. */
  contentLength: number | undefined;
  contentType: string | undefined;
  /** The final URL after redirects (a signed CDN address: treat it as a secret of its own). */
  url: string;
}

/** @internal The content endpoint of video `id`, which redirects to the file. */
export function contentAddress(http: Pick<HTTPPort, 'url'>, id: string): URL {
  return http.url(apiPath`v1/videos/${id}/content`);
}

/** A streamed GET of the content endpoint with the call's options (retries are the caller's). */
export function contentRequest(options: RequestOptions, headers?: Record<string, string>): StreamOptions {
  return { headers: { ...options.headers, accept: 'video/mp4, */*', ...headers }, timeout: options.timeout, signal: options.signal };
}

/** @internal The engine of `videos.content`: the redirect followed with the read retries, the key kept off the file host. */
export async function openContent(http: HTTPPort, id: string, options: RequestOptions): Promise<Answer<VideoContent>> {
  const start = contentAddress(http, id);
  const response = await http.withRetries('read', options, () => http.get(start, contentRequest(options)));
  const length = Number(header(response.headers, 'content-length'));
  const data = {
    body: withSDKErrors(response),
    contentLength: Number.isFinite(length) ? length : undefined,
    contentType: header(response.headers, 'content-type'),
    url: response.url.href,
  };
  return { data, status: response.status, headers: response.headers };
}

/** The body with its failures re-emitted as SDK errors (timeout, abort, connection), the original as `cause`. */
function withSDKErrors(response: SentResponse): Readable {
  const { body } = response;
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  body.on('error', (error) => out.destroy(response.fail(error)));
  body.on('close', () => response.done());
  out.on('close', () => body.destroy());
  body.pipe(out);
  return out;
}
