import type { ProxyCall } from './options.js';

/** A browser request the proxy forwards: what it does, and the API path (relative to the base address) it goes to. */
export interface Route extends ProxyCall {
  apiPath: string;
}

// Matched on the end of the path, so the handler works mounted under any prefix (`/api/avatar/v1/videos/...`).
const COLLECTION = /\/v1\/videos$/;
const ONE = /\/v1\/videos\/([^/]+)$/;
const CONTENT = /\/v1\/videos\/([^/]+)\/content$/;

/** The spec's route a request is, or undefined for anything else (answered 404, nothing sent to the API). */
export function matchRoute(method: string, url: URL): Route | undefined {
  const path = url.pathname;
  if (COLLECTION.test(path)) {
    if (method === 'POST') return { action: 'create', apiPath: 'v1/videos' };
    if (method === 'GET') return { action: 'list', apiPath: `v1/videos${url.search}` };
    return undefined;
  }
  if (method !== 'GET') return undefined;
  const content = CONTENT.exec(path);
  const one = content ?? ONE.exec(path);
  const videoId = one ? videoIdOf(one[1] as string) : undefined;
  if (videoId === undefined) return undefined;
  const apiPath = `v1/videos/${encodeURIComponent(videoId)}`;
  return content ? { action: 'content', videoId, apiPath: `${apiPath}/content` } : { action: 'retrieve', videoId, apiPath };
}

/** The decoded id of a path segment; undefined for one that is not an id (`.` and `..` would climb the API's paths). */
function videoIdOf(segment: string): string | undefined {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return id === '' || id === '.' || id === '..' ? undefined : id;
}
