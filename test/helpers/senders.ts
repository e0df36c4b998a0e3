/**
 * The two implementations of the HTTP seam as client options, for a `describe.each` that runs a file's transport cases
 * on both: undici (Node's default) and fetch (Bun's, Workers', browsers', and any a user passes as `fetch`).
 */
import type { ClientOptions } from '../../src/index.js';

export const SENDERS: { name: string; via: Pick<ClientOptions, 'fetch'> }[] = [
  { name: 'undici', via: {} },
  { name: 'fetch', via: { fetch: (input, init) => globalThis.fetch(input, init) } },
];
