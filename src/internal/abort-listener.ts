// Every wait of the SDK on a caller's signal (a place, the create gate, a sleep, a poll, a request) subscribes here,
// never with its own addEventListener: a thousand jobs under one AbortSignal would add a thousand listeners, and
// Node 20 warns (MaxListenersExceededWarning) past ten. Each signal gets ONE listener of ours, whatever the number of waits.

/** One signal's subscribers, in the order they came, and the one listener that calls them. */
interface Subscribers {
  callbacks: Set<{ callback: () => void }>;
  listener: () => void;
}

const bySignal = new WeakMap<AbortSignal, Subscribers>();

const nothing = () => {};

/**
 * Call `callback` once when `signal` aborts, as `signal.addEventListener('abort', callback, { once: true })` would,
 * under the signal's one shared listener; nothing for no signal or one already aborted (as for a listener: check
 * `signal.aborted` first). Returns the function that forgets the callback, to call as soon as the wait is over: the
 * signal's listener goes when its last callback does.
 * @internal
 */
export function whenAborted(signal: AbortSignal | undefined, callback: () => void): () => void {
  if (!signal || signal.aborted) return nothing;
  const subscribers = bySignal.get(signal) ?? subscribe(signal);
  // A token per call: the same function subscribed twice is two waits, each forgotten on its own.
  const token = { callback };
  subscribers.callbacks.add(token);
  return () => {
    if (!subscribers.callbacks.delete(token) || subscribers.callbacks.size > 0) return;
    if (bySignal.get(signal) === subscribers) bySignal.delete(signal);
    signal.removeEventListener('abort', subscribers.listener);
  };
}

/** The signal's listener: each callback in turn (one forgotten by an earlier one is skipped), the first throw rethrown. */
function subscribe(signal: AbortSignal): Subscribers {
  const subscribers: Subscribers = {
    callbacks: new Set(),
    listener: () => {
      bySignal.delete(signal);
      let failure: { error: unknown } | undefined;
      for (const token of subscribers.callbacks) {
        subscribers.callbacks.delete(token);
        try {
          token.callback();
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    },
  };
  bySignal.set(signal, subscribers);
  signal.addEventListener('abort', subscribers.listener, { once: true });
  return subscribers;
}
