/**
 * `avatar-video/testing`: a stateful mock of the whole API on real loopback sockets, so tests exercise
 * the SDK's actual HTTP stack (undici), redirects across origins, retries and downloads.
 *
 *   const server = await startMockServer({ clock: 'manual' });
 *   const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL });
 *   ...
 *   await server.close();
 *
 * Users who already run MSW can take `createHandlers(new MockState(), { api, cdn })` instead.
 */
import type { HttpHandler } from 'msw';
import { createHandlers } from './handlers.js';
import { loadMsw } from './msw.js';
import { type LoopbackServer, listenLoopback } from './node-server.js';
import {
  type FailureMatch,
  type FailureReply,
  type MockOutcome,
  MockState,
  type MockStateOptions,
  type MockVideo,
  type RecordedRequest,
} from './state.js';

// Without msw, importing this module throws MSW_MISSING here, before anything else happens.
const { getResponse } = loadMsw();

export { LANDSCAPE_MP4, PORTRAIT_MP4 } from './fixtures.generated.js';
export { createHandlers, type MockOrigins } from './handlers.js';
export { MSW_MISSING } from './msw.js';
export { MOCK_ERROR_CODES, MOCK_VALIDATION_ERRORS, type MockErrorCode, type MockValidationProblem } from './responses.js';
export {
  type FailureMatch,
  type FailureReply,
  type MockOutcome,
  MockState,
  type MockStateOptions,
  type MockVideo,
  type RecordedRequest,
} from './state.js';

export interface MockServerOptions extends MockStateOptions {
  /** API port; 0 (default) picks a free one. The CDN always gets a free port. Host is always 127.0.0.1. */
  port?: number;
}

export interface MockServer {
  /** `http://127.0.0.1:<port>`, no trailing slash; paths are /v1/... */
  baseURL: string;
  apiKey: string;
  /** The CDN origin the content redirect points to (a different port, so a different origin). */
  cdnURL: string;
  /** Move the manual clock, or add an offset to the real one. */
  advance(ms: number): void;
  /** The next created job ends this way instead of COMPLETE (first in, first out). */
  enqueueOutcome(outcome: MockOutcome): void;
  /** Answer matching requests with `reply` before any other handling (auth included). */
  failNext(match: FailureMatch, reply: FailureReply): void;
  /** Force fields of a video, e.g. `{ status: 'QUEUED' }`. Throws for an unknown id. */
  setVideo(id: string, patch: Partial<MockVideo>): void;
  getVideo(id: string): MockVideo | undefined;
  /** Forget every job, request, queued outcome and injected failure (options and clock stay). See MockState.reset. */
  reset(): void;
  /** Every request both origins received, oldest first. */
  readonly requests: RecordedRequest[];
  /** Successful creates so far. */
  readonly creates: number;
  /** Creates refused with 429 by `concurrencyLimit` so far. */
  readonly throttledCreates: number;
  /** The state and handlers behind this server, for advanced use. */
  readonly state: MockState;
  readonly handlers: HttpHandler[];
  /** Stops both servers, dropping open keep-alive connections. */
  close(): Promise<void>;
}

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const state = new MockState(options);
  let handlers: HttpHandler[] = [];
  // Handlers need both origins, known only after listening; both servers share one list.
  const handle = (request: Request) => getResponse(handlers, request);
  const api = await listenLoopback(options.port ?? 0, handle);
  let cdn: LoopbackServer;
  try {
    cdn = await listenLoopback(0, handle);
  } catch (error) {
    await api.close();
    throw error;
  }
  handlers = createHandlers(state, { api: api.origin, cdn: cdn.origin });

  return {
    baseURL: api.origin,
    apiKey: state.options.apiKey,
    cdnURL: cdn.origin,
    advance: (ms) => state.advance(ms),
    enqueueOutcome: (outcome) => state.enqueueOutcome(outcome),
    failNext: (match, reply) => state.failNext(match, reply),
    setVideo: (id, patch) => state.setVideo(id, patch),
    getVideo: (id) => state.getVideo(id),
    reset: () => state.reset(),
    requests: state.requests,
    get creates() {
      return state.creates;
    },
    get throttledCreates() {
      return state.throttledCreates;
    },
    state,
    handlers,
    close: async () => {
      await Promise.all([api.close(), cdn.close()]);
    },
  };
}
