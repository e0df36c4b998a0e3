import { chunksOf, type ResponseBody } from '../../internal/http-client.js';
import type { StreamedAnswer } from '../../lib/endpoints.js';

// The web build's lib/content.ts (tsup.config.ts): a video's bytes as a web ReadableStream, not a Node Readable.

/** The MP4 of a finished video, as a web stream. */
export interface VideoContent {
  /** The file's bytes. Read it to its end or cancel it: it holds a connection until then. */
  body: ReadableStream<Uint8Array>;
  /** Size in bytes, when the server said. */
  contentLength: number | undefined;
  contentType: string | undefined;
  /** The final URL after redirects (a signed address: treat it as a secret of its own). */
  url: string;
}

/** @internal The body of a content answer with its failures as SDK errors (timeout, abort, connection), the original as `cause`. */
export function contentBody(response: StreamedAnswer): ReadableStream<Uint8Array> {
  const chunks = chunksOf(response.body as ResponseBody)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await chunks.next();
          if (!done) return controller.enqueue(value);
          response.done();
          controller.close();
        } catch (error) {
          response.done();
          controller.error(response.fail(error));
        }
      },
      async cancel() {
        await chunks.return?.();
        response.release();
      },
    },
    { highWaterMark: 0 },
  );
}
