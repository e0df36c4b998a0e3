import { abortError } from './abort.js';

/** Wait `ms`, or reject with APIUserAbortError (saying `what` was aborted) as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal, what = 'Request'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal, what));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal, what));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
