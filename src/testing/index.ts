/**
 * `avatar-video/testing`: a stateful mock of the whole API on real loopback sockets, so tests exercise
 * the SDK's actual HTTP stack (undici), redirects across origins, retries and downloads.
 *
 *   const server = await startMockServer({ clock: 'manual' });
 *   const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL });
 *   ...
 *   await server.close();
 *
 * `signedEvent(video, secret)` signs a webhook event as the SDK's deliveries are, for a receiver's own tests.
 *
 * The routes are MSW handlers, but they are not offered for a user's own `setupServer`: that intercepts
 * the global fetch and node:http, never the undici the SDK sends with, so the SDK would not see them.
 */
import { createHandlers } from './handlers.js';
import { getResponse, http } from './msw.js';
import { listenLoopback } from './node-server.js';
import { MockState, type MockStateOptions } from './state.js';

export { LANDSCAPE_MP4, PORTRAIT_MP4 } from './fixtures.generated.js';
export { MOCK_ERROR_CODES, MOCK_VALIDATION_ERRORS, type MockErrorCode, type MockValidationProblem } from './responses.js';
export {
  type FailureMatch,
  type FailureReply,
  type MockCreateRate,
  type MockOutcome,
  MockState,
  type MockStateOptions,
  type MockVideo,
  type RecordedRequest,
} from './state.js';
export { type SignedEvent, type SignedEventOptions, signedEvent } from './webhook.js';

export interface MockServerOptions extends MockStateOptions {
  /** API port; 0 picks a free one. The CDN always gets a free port. Host is always 127.0.0.1. @default 0 */
  port?: number | undefined;
}

/** A mock API and file host on loopback ports, with the state's controls and counters (see {@link MockState} for each). */
export interface MockServer
  extends Readonly<
    Pick<
      MockState,
      'advance' | 'enqueueOutcome' | 'failNext' | 'setVideo' | 'getVideo' | 'reset' | 'requests' | 'creates' | 'throttledCreates'
    >
  > {
  /** `http://127.0.0.1:<port>`, no trailing slash; paths are /v1/... */
  baseURL: string;
  apiKey: string;
  /** The CDN origin the content redirect points to (a different port, so a different origin). */
  cdnURL: string;
  /** The state behind this server, for advanced use. */
  readonly state: MockState;
  /** Stops both servers, dropping open keep-alive connections. */
  close(): Promise<void>;
}

/**
 * Starts the mock: an API origin and a CDN origin on 127.0.0.1. It needs no msw installed: the parts it uses are bundled.
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const state = new MockState(options);
  let handlers: ReturnType<typeof createHandlers> = [];
  // Handlers need both origins, known only after listening; both servers share one list.
  const handle = (request: Request) => getResponse(handlers, request);
  const api = await listenLoopback(options.port ?? 0, handle);
  const cdn = await listenLoopback(0, handle).catch(async (error: unknown) => {
    await api.close();
    throw error;
  });
  handlers = createHandlers(http, state, { api: api.origin, cdn: cdn.origin });

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
    close: async () => {
      await Promise.all([api.close(), cdn.close()]);
    },
  };
}
