import { platform } from '#platform';
import type { ErrorOrigin } from '../errors.js';
import type { TracingChannel } from './platform.js';

export type { TracingChannel } from './platform.js';

// The tracing mechanism (the platform's: node:diagnostics_channel on Node, inert on the web) and the request channel.
// Payloads hold no key, no URL and no body: method, path template, host, counts and ids only. With nobody subscribed,
// nothing is built or published. What the operations around requests are (jobs, downloads, batch items) is
// lib/tracing.ts's to say.

/** The route of a request to the file host: its address is signed, so it is never published. */
export const FILE_ROUTE = '{file}';

/** `avatar-video:request`: one attempt of an API request, or one request of a download (each redirect hop its own). */
export interface RequestTrace {
  method: 'GET' | 'POST';
  /** The API path as a template, ids left out: `/v1/videos/{id}`; `{file}` for the file host's signed address. */
  route: string;
  /** Whose server: `'api'`, or `'file-host'` (where a content redirect pointed to). */
  origin: ErrorOrigin;
  /** The server's `URL.host`, e.g. `api.example.com` or `cdn.example.com`: never a path or query. */
  host: string;
  /** 1 for the first try, 2 for the first retry... */
  attempt: number;
  /** The HTTP status, once answered (undefined when the connection failed). */
  status?: number | undefined;
  /** The server's `x-request-id`, once answered. */
  requestId?: string | undefined;
  /** The traced operation this request belongs to (lib/tracing.ts's job payload), when one is traced. */
  job?: object | undefined;
}

/** The runtime's tracing channel `name`: node:diagnostics_channel's on Node, one nobody can subscribe to on the web. */
export function tracingChannel<P extends object>(name: string): TracingChannel<P> {
  return platform.tracingChannel<P>(name);
}

const requests = tracingChannel<RequestTrace>('avatar-video:request');

/** Whether anyone listens to requests: an operation around them is then worth tracing too, for them to point at. */
export function requestsTraced(): boolean {
  return requests.hasSubscribers;
}

/**
 * `call` traced on `channel` with `trace` as the payload. Its result stays out of the payload (diagnostics_channel
 * would add it as `result`): an answer may hold addresses, and the payload holds only what is documented.
 */
export async function traced<T, P extends object>(channel: TracingChannel<P>, trace: P, call: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  await channel.tracePromise(async () => {
    result = await call();
  }, trace);
  return result as T;
}

/** The traced operation around the current call, for its requests (and whatever else lib/ traces) to point at. */
const current = platform.operationScope();

/** Run `call` inside the operation `scope`. */
export function inScope<T>(scope: object, call: () => T): T {
  return current.run(scope, call);
}

/** The operation around the current call, if one is traced. */
export function currentScope(): object | undefined {
  return current.getStore();
}

/** Which request is traced: its method, route template and server, and its attempt. */
export type RequestSite = Pick<RequestTrace, 'method' | 'route' | 'origin' | 'host' | 'attempt'>;

/** Run one attempt of a request, traced when subscribed. */
export function traceRequest<T extends { status: number; headers: unknown }>(
  site: RequestSite,
  call: () => Promise<T>,
  answered: (headers: T['headers']) => string | undefined,
): Promise<T> {
  if (!requests.hasSubscribers) return call();
  const { method, route, origin, host, attempt } = site;
  const trace: RequestTrace = { method, route, origin, host, attempt, job: current.getStore() };
  return traced(requests, trace, async () => {
    try {
      const answer = await call();
      trace.status = answer.status;
      trace.requestId = answered(answer.headers);
      return answer;
    } catch (error) {
      const { status, requestId } = error as { status?: unknown; requestId?: unknown };
      if (typeof status === 'number') trace.status = status;
      if (typeof requestId === 'string') trace.requestId = requestId;
      throw error;
    }
  });
}
