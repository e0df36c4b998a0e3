import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { AvatarVideo, AvatarVideoError } from '../../src/index.js';
import { fakeMp4 } from '../helpers/fake-mp4.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

/** Writes fail with ENOSPC while this is set, as on a full disk. */
const disk = vi.hoisted(() => ({ full: false }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((...args: Parameters<typeof actual.writeSync>) => {
    if (disk.full)
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    return actual.writeSync(...args);
  }) as typeof actual.writeSync;
  return { ...actual, writeSync, default: { ...actual, writeSync } };
});

const BODY = fakeMp4(1 << 20);
let dir: string;
const closers = useCleanup();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-disk-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});
afterEach(() => {
  disk.full = false;
});

it('wraps a full disk in an AvatarVideoError with the system error as cause, leaving nothing behind', async () => {
  const api = await rawServer((req, res) => {
    if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE' }));
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(BODY.length) }).end(BODY);
  });
  const client = new AvatarVideo({ apiKey: 'sk-disk-key-1234', baseURL: api.url, logLevel: 'off' });
  closers.push(() => client.close(), api.close);
  const target = join(dir, 'out.mp4');
  await writeFile(target, 'old');
  disk.full = true;
  const error = await client.videos.download('vid_1', target).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AvatarVideoError);
  expect((error as Error).message).toContain(target);
  expect((error as Error).cause).toMatchObject({ code: 'ENOSPC' });
  expect(await readFile(target, 'utf8')).toBe('old');
  expect(await readdir(dir)).toEqual(['out.mp4']);
  disk.full = false;
  await client.videos.download('vid_1', target);
  expect((await readFile(target)).equals(BODY)).toBe(true);
});
