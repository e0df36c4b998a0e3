import { abortError } from './abort.js';
import { whenAborted } from './abort-listener.js';

/** Wait `ms`, or reject with APIUserAbortError (saying `what` was aborted) as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal, what = 'Request'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal, what));
    const forget = whenAborted(signal, () => {
      clearTimeout(timer);
      reject(abortError(signal, what));
    });
    const timer = setTimeout(() => {
      forget();
      resolve();
    }, ms);
  });
}
