/**
 * The browser example: serves a page (index.html, page.ts bundled for the browser with esbuild) and mounts the
 * key-safe proxy (`avatar-video/proxy`) under /api/avatar on the same origin. Each visitor gets a demo session
 * (a cookie); the proxy lets a session see only the videos it made.
 *
 *   npm run build && npx tsx examples/browser/server.ts      then open the address it prints
 *
 * Against the mock by default; against the service with AVATAR_VIDEO_BASE_URL and AVATAR_VIDEO_API_KEY set. PORT
 * (default 3000, 0 for any free port) and MAX_UPLOAD_BYTES (default 50 MB) are read too. The page imports
 * 'avatar-video', and the bundler's `browser` condition picks the package's web entry: so the package must be
 * built (in this repository) or installed (in a project of your own, with esbuild).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProxyHandler, toNodeHandler } from 'avatar-video/proxy';
import { startMockServer } from 'avatar-video/testing';
import { build } from 'esbuild';

const MOUNT = '/api/avatar';
const SESSION = 'demo_session';
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** The service to call: the one the environment names, else a mock of this process's own. */
async function service(): Promise<{ baseURL: string; apiKey: string; close(): Promise<void> }> {
  const baseURL = process.env.AVATAR_VIDEO_BASE_URL?.trim();
  const apiKey = process.env.AVATAR_VIDEO_API_KEY?.trim();
  if (baseURL && apiKey) return { baseURL, apiKey, close: async () => {} };
  if (baseURL || apiKey) throw new Error('Set both AVATAR_VIDEO_BASE_URL and AVATAR_VIDEO_API_KEY, or neither (for the mock).');
  return startMockServer();
}

/**
 * The page's scripts, bundled as a browser would get them from a bundler: the `browser` condition picks the web entry.
 * Split into chunks, so the page loads only what it runs: mediabunny (a video's probe) and zod (an answer the SDK's
 * own checks do not take) are chunks of their own, fetched when first needed. Keyed by the path they are served at.
 */
async function bundlePage(): Promise<Map<string, string>> {
  const built = await build({
    entryPoints: { page: here('page.ts') },
    bundle: true,
    splitting: true,
    outdir: here('.'),
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    // This repository's tsconfig maps 'avatar-video' to the Node sources; the page must get the package itself.
    tsconfigRaw: {},
    logLevel: 'silent',
  }).catch((error: Error) => {
    throw new Error(`The page could not be bundled (in this repository, run \`npm run build\` first): ${error.message}`);
  });
  return new Map(built.outputFiles.map((file) => [`/${basename(file.path)}`, file.text]));
}

/** The demo session of a request: a cookie this server set. A real app would use its own login here. */
function sessionOf(cookies: string | null | undefined): string | undefined {
  return cookies?.match(new RegExp(`(?:^|;\\s*)${SESSION}=([\\w-]+)`))?.[1];
}

/** The proxy for `api`: every visitor with a session may create; each sees only the videos it made. */
function avatarProxy(api: { baseURL: string; apiKey: string }) {
  const owners = new Map<string, string>(); // video id -> the session that made it
  return toNodeHandler(
    createProxyHandler({
      apiKey: api.apiKey,
      baseURL: api.baseURL,
      maxUploadBytes: Number(process.env.MAX_UPLOAD_BYTES ?? 50 * 1024 * 1024),
      authorize: (request, { action, videoId }) => {
        const session = sessionOf(request.headers.get('cookie'));
        if (session === undefined) return false;
        if (action === 'create') return true;
        // No list here: it would show every user's videos. retrieve and content: only the session's own.
        return videoId !== undefined && owners.get(videoId) === session;
      },
      onCreated: (request, video) => {
        const session = sessionOf(request.headers.get('cookie'));
        if (session !== undefined) owners.set(video.id, session);
      },
    }),
  );
}

/** The page and its scripts; anything else is a 404. */
function pages(html: string, scripts: Map<string, string>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const script = scripts.get(path);
    if (req.method !== 'GET' || (path !== '/' && script === undefined)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const headers: Record<string, string> = { 'cache-control': 'no-store' };
    if (script !== undefined) return void res.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end(script);
    // A visitor without a session gets one: it is all the proxy knows of who asks.
    if (sessionOf(req.headers.cookie) === undefined)
      headers['set-cookie'] = `${SESSION}=${randomUUID()}; Path=/; HttpOnly; SameSite=Strict`;
    res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(html);
  };
}

// No top-level await: this file runs as ESM or CommonJS, whichever the project around it is.
async function main(): Promise<void> {
  const api = await service();
  const proxy = avatarProxy(api);
  const page = pages(await readFile(here('index.html'), 'utf8'), await bundlePage());
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === MOUNT || path.startsWith(`${MOUNT}/`)) void proxy(req, res);
    else page(req, res);
  });
  server.once('error', async (error) => {
    console.error(`The browser example could not listen: ${error.message}`);
    await api.close();
    process.exit(1);
  });
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    console.log(`The browser example: http://127.0.0.1:${(server.address() as AddressInfo).port}/ (calling ${api.baseURL})`);
  });
  const stop = async () => {
    server.close();
    server.closeAllConnections();
    await api.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
