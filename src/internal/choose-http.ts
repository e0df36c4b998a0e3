import type { Dispatcher } from 'undici';
import { InvalidArgumentError } from '../errors.js';
import { type FetchFunction, fetchClient } from './fetch-send.js';
import type { HttpClient } from './http-client.js';
import { UndiciClient } from './send.js';
import { undiciDispatches } from './undici-dispatches.js';

// Which implementation of the seam a client sends with: the user's `fetch`, else undici (the user's dispatcher or the
// client's own pool), else the runtime's fetch where undici has no dispatcher (Bun's partial copy of undici).

export interface HttpChoice {
  fetch: FetchFunction | undefined;
  dispatcher: Dispatcher | undefined;
  /** The API key, scrubbed from every failure's message. */
  secret: string;
}

const BUN_UNDICI =
  "this runtime's undici has no dispatcher (Bun ships a partial copy of its own): leave dispatcher out, and the client sends with the runtime's fetch";

/** The client's HTTP client; a `dispatcher` that cannot apply is an InvalidArgumentError saying why. */
export function chooseHttpClient({ fetch, dispatcher, secret }: HttpChoice): HttpClient {
  if (fetch && dispatcher) {
    throw new InvalidArgumentError(
      'dispatcher',
      'dispatcher is an option of undici, and a client given fetch sends with that fetch: configure the proxy (or agent) in your fetch, or pass only dispatcher.',
    );
  }
  if (fetch) return fetchClient(secret, fetch);
  if (dispatcher) {
    if (typeof dispatcher.dispatch !== 'function') throw new InvalidArgumentError('dispatcher', `dispatcher cannot apply: ${BUN_UNDICI}.`);
    return new UndiciClient(dispatcher, secret);
  }
  return deferred(() => (undiciDispatches() ? new UndiciClient(undefined, secret) : fetchClient(secret)));
}

/** A client made at the first request: loading undici to look is left to the first request, as the pool was. */
function deferred(make: () => HttpClient): HttpClient {
  let made: HttpClient | undefined;
  let closed = false;
  const client = () => {
    if (made) return made;
    made = make();
    if (closed) void made.close(); // a client closed before its first request fails as a closed one does
    return made;
  };
  return {
    exchange: (attempt) => client().exchange(attempt),
    send: (attempt) => client().send(attempt),
    close: async () => {
      closed = true;
      await made?.close();
    },
  };
}
