/** The bounds an upload is held to on its way to the API. */
export interface UploadLimits {
  /** The most bytes it may have. */
  maxBytes: number;
  /** Milliseconds the proxy may wait for its next byte. */
  idleTimeout: number;
  /** The fewest bytes a second it must send, over each window of waiting for it. */
  minBytesPerSecond: number;
  /** Milliseconds of waiting each rate check covers (the first window is the upload's grace time). */
  rateWindow: number;
}

/** Why an upload was cut off: what the browser is answered. */
export interface UploadRefusal {
  status: number;
  code: string;
  message: string;
}

/** An upload's body held to its limits, and the signal the request to the API is sent with. */
export interface GuardedUpload {
  body: ReadableStream<Uint8Array>;
  /** Follows the browser's signal until the body has been read whole; never after (a create's answer may name a paid job). */
  signal: AbortSignal;
  /** Why the body was cut off, once it was. */
  refusal(): UploadRefusal | undefined;
}

/**
 * The body passed on chunk by chunk as the API's request asks for it (nothing read ahead, nothing buffered), errored
 * as soon as it passes a limit: that aborts the request it is the body of, so the API never sees a partial create
 * end, and cancels the browser's upload. Only the time spent waiting for the browser counts against it, not the API's
 * own slowness to read.
 */
export function guardUpload(source: ReadableStream<Uint8Array>, browser: AbortSignal, limits: UploadLimits): GuardedUpload {
  const upstream = new AbortController();
  const followBrowser = () => upstream.abort(browser.reason);
  if (browser.aborted) followBrowser();
  else browser.addEventListener('abort', followBrowser, { once: true });
  const reader = source.getReader();
  const meter = new UploadMeter(limits);
  const settle = () => browser.removeEventListener('abort', followBrowser);
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await meter.timed(reader.read(), () => reader.cancel().catch(() => {}));
        const refusal = meter.refusal;
        if (refusal) {
          settle();
          return controller.error(new Error(refusal.message));
        }
        if (!next.done) return controller.enqueue(next.value);
        settle(); // the whole body has left: the browser going away no longer stops the create
        controller.close();
      },
      cancel(reason) {
        settle();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, signal: upstream.signal, refusal: () => meter.refusal };
}

/** An upload's size, its idle time and its rate, measured while the proxy waits for it. */
class UploadMeter {
  refusal: UploadRefusal | undefined;
  #bytes = 0;
  /** Milliseconds spent waiting for the browser, and where the current rate window began in them. */
  #waited = 0;
  #windowStart = 0;
  #windowBytes = 0;

  constructor(readonly limits: UploadLimits) {}

  /** One read of the browser's body, given up (`giveUp`) when no byte comes for the idle time. */
  async timed(read: Promise<ReadableStreamReadResult<Uint8Array>>, giveUp: () => void) {
    const started = Date.now();
    const { idleTimeout } = this.limits;
    const timer = setTimeout(() => {
      this.refusal ??= refusal(408, 'upload_timeout', `The upload sent nothing for ${idleTimeout} ms, so the proxy stopped it.`);
      giveUp();
    }, idleTimeout);
    try {
      const next = await read;
      if (!this.refusal && !next.done) this.#count(next.value.byteLength, Date.now() - started);
      return next;
    } finally {
      clearTimeout(timer);
    }
  }

  #count(bytes: number, waited: number): void {
    const { maxBytes, minBytesPerSecond, rateWindow } = this.limits;
    this.#bytes += bytes;
    this.#waited += waited;
    this.#windowBytes += bytes;
    if (this.#bytes > maxBytes) {
      this.refusal = tooLarge(maxBytes);
      return;
    }
    const span = this.#waited - this.#windowStart;
    if (span < rateWindow) return;
    if (this.#windowBytes < (minBytesPerSecond * span) / 1000) {
      this.refusal = refusal(
        408,
        'upload_too_slow',
        `The upload sent less than ${minBytesPerSecond} bytes a second, so the proxy stopped it.`,
      );
      return;
    }
    this.#windowStart = this.#waited;
    this.#windowBytes = 0;
  }
}

/** The answer to an upload over `maxBytes`, whether its `Content-Length` said so or its body passed it. */
export function tooLarge(maxBytes: number): UploadRefusal {
  return refusal(413, 'upload_too_large', `The upload is larger than ${maxBytes} bytes, the most this proxy accepts.`);
}

function refusal(status: number, code: string, message: string): UploadRefusal {
  return { status, code, message };
}
