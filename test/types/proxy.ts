/**
 * The type contract of `avatar-video/proxy` (compiled by test/e2e/types.test.ts against the build, and by
 * `npm run typecheck` against the sources): its handler is a web-standard one, its node adapter a `node:http` listener,
 * and `onCreated` gets the main entry's `Video`. Nothing here runs.
 */
import { createServer } from 'node:http';
import type { Video } from 'avatar-video';
import {
  createProxyHandler,
  type NodeHandler,
  type ProxyAction,
  type ProxyCall,
  type ProxyErrorContext,
  type ProxyHandler,
  type ProxyOptions,
  toNodeHandler,
} from 'avatar-video/proxy';

const owners = new Map<string, string>();
const options: ProxyOptions = {
  apiKey: 'key',
  baseURL: 'https://api.example.com',
  authorize: async (request: Request, { action, videoId }: ProxyCall) =>
    action === 'create' || owners.get(videoId ?? '') === request.headers.get('x-user'),
  onCreated: (request: Request, video: Video) => {
    owners.set(video.id, request.headers.get('x-user') ?? '');
  },
  onError: (error: unknown, { createdVideoId }: ProxyErrorContext) => console.error(createdVideoId, error),
  maxUploadBytes: undefined,
  allowInsecureHttp: undefined,
  fetch: undefined,
};

export const handler: ProxyHandler = createProxyHandler(options);
export const answer: Promise<Response> = handler(new Request('https://app.example/api/avatar/v1/videos'));
// node:http takes the adapter as a request listener, as is.
const adapted: NodeHandler = toNodeHandler(handler);
export const server = createServer(adapted);
export const action: ProxyAction = 'content';
// @ts-expect-error authorize is required: a proxy that decides nothing spends the key for anyone
export const open: ProxyOptions = { apiKey: 'key', baseURL: 'https://api.example.com' };
