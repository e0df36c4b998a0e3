/** An upload's body with a limit on its size. */
export interface LimitedBody {
  body: ReadableStream<Uint8Array>;
  /** Whether the body passed the limit (and so was cut off). */
  exceeded(): boolean;
}

/**
 * The body passed on chunk by chunk as it arrives (nothing buffered), errored as soon as more than `limit` bytes went
 * through: that aborts the request it is the body of, and cancels the browser's upload.
 */
export function limitBody(source: ReadableStream<Uint8Array>, limit: number): LimitedBody {
  let seen = 0;
  const body = source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new Error(`The upload is larger than ${limit} bytes.`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return { body, exceeded: () => seen > limit };
}
