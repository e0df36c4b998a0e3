import { PassThrough } from 'node:stream';
import { afterEach, expect, it, vi } from 'vitest';
import { buildProgram } from '../src/cli/program.js';
import { Session } from '../src/cli/session.js';
import { rawServer } from './helpers/raw-server.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(closers.splice(0).map((close) => close()));
});

it('`avatar-video url <id>` prints the signed address and asks nothing of the file host', async () => {
  const cdn = await rawServer((_req, res) => res.writeHead(200).end('video'));
  const api = await rawServer((_req, res) => res.writeHead(302, { location: `${cdn.url}/files/vid_1.mp4?sig=abc` }).end());
  closers.push(cdn.close, api.close);
  vi.stubEnv('AVATAR_VIDEO_API_KEY', 'sk-cli-url-key-1234');
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.resume();
  const session = new Session(
    new AbortController().signal,
    stdout as unknown as NodeJS.WriteStream,
    stderr as unknown as NodeJS.WriteStream,
  );
  closers.push(() => session.close());
  await buildProgram(session).parseAsync(['node', 'avatar-video', '--json', '--base-url', api.url, 'url', 'vid_1']);
  expect(JSON.parse(out)).toEqual({ id: 'vid_1', url: `${cdn.url}/files/vid_1.mp4?sig=abc` });
  expect(api.requests.map((r) => r.url)).toEqual(['/v1/videos/vid_1/content']);
  expect(cdn.requests).toHaveLength(0);
});
