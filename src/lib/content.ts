import { PassThrough, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { StreamedAnswer } from './endpoints.js';

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

/** @internal The body of a content answer with its failures re-emitted as SDK errors (timeout, abort, connection), the original as `cause`. */
export function contentBody(response: StreamedAnswer): Readable {
  // A fetch client's body is a web stream: a Node Readable here, at the Node entry's edge.
  const body = response.body instanceof Readable ? response.body : Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  body.on('error', (error) => out.destroy(response.fail(error)));
  body.on('close', () => response.done());
  out.on('close', () => body.destroy());
  body.pipe(out);
  return out;
}
