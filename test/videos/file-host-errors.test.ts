/**
 * A file host's error answers to the first content request: a plain APIError that says it is the file host's (origin,
 * host, code), without its HTML page, naming the signed address without its query, the video and how to go on.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { APIError, AvatarVideo, NotFoundError, PermissionDeniedError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const KEY = 'sk-file-host-secret-1';
const SIG = 'sig=s3cr3t-signature';
const PAGE = (title: string) =>
  `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>`;

const closers = useCleanup();
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-file-host-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

/** An API that redirects content to a signed address on a file host answering `status` with an nginx page. */
async function servers(status: number, title: string) {
  const host = await rawServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', server: 'nginx/1.22.1' });
    res.end(PAGE(title));
  });
  const api = await rawServer((req, res) => {
    if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 }));
    res.writeHead(302, { location: `${host.url}/files/vid_1.mp4?${SIG}` });
    res.end();
  });
  const client = new AvatarVideo({ apiKey: KEY, baseURL: api.url, logLevel: 'off', maxRetryDelay: 20 });
  closers.push(() => client.close(), host.close, api.close);
  return { api, host, client, fileHost: new URL(host.url).host };
}

it.each([
  [404, 'Not Found', 'file_not_found', 'there is no file there'],
  [410, 'Gone', 'file_expired', 'the signed download address has expired'],
  [403, 'Forbidden', 'file_forbidden', 'the host refused it (expired, or not valid for this request)'],
])('a file host answering %i to the first content request is a plain APIError of the file host', async (status, title, code, reason) => {
  const { api, host, client, fileHost } = await servers(status, `${status} ${title}`);
  const error = await client.videos.download('vid_1', join(dir, 'out.mp4')).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(APIError);
  expect(error).not.toBeInstanceOf(NotFoundError);
  expect(error).not.toBeInstanceOf(PermissionDeniedError);
  const failed = error as APIError;
  expect(failed.constructor).toBe(APIError);
  expect(failed).toMatchObject({ status, origin: 'file-host', host: fileHost, code, body: undefined, videoId: 'vid_1' });
  expect(failed.message).toBe(
    `The file host ${fileHost} answered ${status} ${title} for the signed address ${host.url}/files/vid_1.mp4: ${reason}. ` +
      "Video vid_1 is COMPLETE but was not saved: call videos.download('vid_1', path) to save it without paying again.",
  );
  const json = JSON.stringify(failed);
  for (const text of [failed.message, json]) {
    expect(text).not.toContain('sig=');
    expect(text).not.toContain('<html');
    expect(text).not.toContain(KEY);
  }
  expect(JSON.parse(json)).toMatchObject({ message: failed.message, origin: 'file-host', host: fileHost, code });
  // Not retried (a 4xx), and the API's content request was made once.
  expect(host.requests).toHaveLength(1);
  expect(api.requests.filter((r) => r.url.endsWith('/content'))).toHaveLength(1);
  expect(await readdir(dir)).toEqual([]);
});

it("an error answer of the API itself stays the API's: origin api, its host, its status class", async () => {
  const api = await rawServer((_req, res) => json(res, 404, { error: { code: 'not_found', message: 'No video vid_9' } }));
  const client = new AvatarVideo({ apiKey: KEY, baseURL: api.url, logLevel: 'off' });
  closers.push(() => client.close(), api.close);
  const error = await client.videos.retrieve('vid_9').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NotFoundError);
  expect(error).toMatchObject({ origin: 'api', host: new URL(api.url).host, code: 'not_found' });
  const content = await client.videos.content('vid_9').catch((e: unknown) => e);
  expect(content).toBeInstanceOf(NotFoundError);
  expect(content).toMatchObject({ origin: 'api', host: new URL(api.url).host });
});
