/**
 * `avatar-video/proxy`: lets a browser use the API without ever holding the key. A web-standard handler
 * (`(request: Request) => Promise<Response>`) for Next.js route handlers, Hono, Workers, `Bun.serve` and
 * `Deno.serve`, and `toNodeHandler` for `node:http` and Express. No `node:` module is loaded, on any runtime.
 *
 *   const handler = createProxyHandler({ apiKey, baseURL, authorize: (request, { action, videoId }) => ... });
 *
 * `InvalidArgumentError` is the main entry's: the build imports it from `avatar-video` by name.
 */
export { createProxyHandler, type ProxyHandler } from './handler.js';
export { type NodeHandler, type NodeRequestLike, type NodeResponseLike, toNodeHandler } from './node.js';
export type { ProxyAction, ProxyCall, ProxyErrorContext, ProxyOptions } from './options.js';
