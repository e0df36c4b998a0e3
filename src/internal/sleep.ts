import { APIUserAbortError } from '../errors.js';

/** Wait `ms`, or reject with APIUserAbortError (saying `abortMessage`) as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal, abortMessage = 'Request was aborted.'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError(abortMessage, { cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError(abortMessage, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
