import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AvatarVideo, AvatarVideoError, OutputPathError, UploadInputError } from '../../src/index.js';
import { probeMedia } from '../../src/media/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-errors-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

describe('every error the SDK throws extends AvatarVideoError', () => {
  it('UploadInputError (exported) for an input that cannot be uploaded', async () => {
    const error = await probeMedia(new URL('https://example.com/me.png')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadInputError);
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect(error).not.toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/Only file: URLs/);
  });

  it('UploadInputError for a missing file, with the cause', async () => {
    const error = await probeMedia(join(dir, 'missing.wav')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadInputError);
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('an id that would walk to another endpoint, before any request', async () => {
    const server = await rawServer((_req, res) => json(res, 200, video()));
    const client = new AvatarVideo({ apiKey: 'key-errors-1', baseURL: server.url, logLevel: 'off' });
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    const error = await client.videos.retrieve('..').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect(error).not.toBeInstanceOf(TypeError);
    expect(server.requests).toHaveLength(0);
  });

  /** What generateLong, on a server that is never asked, throws for a workDir whose manifest.json holds `manifest`. */
  async function generateLongOverManifest(manifest: string) {
    const server = await rawServer((_req, res) => json(res, 200, video()));
    const client = new AvatarVideo({ apiKey: 'key-errors-3', baseURL: server.url, logLevel: 'off' });
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    const workDir = join(dir, 'work');
    await mkdir(workDir, { recursive: true });
    await writeFile(join(workDir, 'manifest.json'), manifest);
    const audio = join(dir, 'long.wav');
    await writeFile(audio, wav(75));
    const error = await client.videos
      .generateLong({ audio_reference: audio, image_reference: mockFixture('portrait.png') }, { output: join(dir, 'long.mp4'), workDir })
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(0);
    return { error, path: join(workDir, 'manifest.json') };
  }

  it('a corrupt generateLong manifest names its file and how to go on, before any request', async () => {
    const { error, path } = await generateLongOverManifest('{"version": 1, "segments": [');
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect(error).not.toBeInstanceOf(SyntaxError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(/not valid JSON.*another workDir/);
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('a manifest of another shape (or `null`) is refused the same way', async () => {
    for (const text of ['null', '{"version": 2, "segments": []}']) {
      const { error } = await generateLongOverManifest(text);
      expect(error).toBeInstanceOf(AvatarVideoError);
      expect((error as Error).message).toMatch(/not a manifest this SDK understands/);
    }
  });
});

describe('a file system failure is an AvatarVideoError naming what it was making, with the system error as cause', () => {
  it('generateLong whose work folder cannot be made, before any request', async () => {
    const server = await rawServer((_req, res) => json(res, 200, video()));
    const client = new AvatarVideo({ apiKey: 'key-errors-2', baseURL: server.url, logLevel: 'off' });
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    const audio = join(dir, 'long.wav');
    await writeFile(audio, wav(75));
    await writeFile(join(dir, 'a-file'), 'not a folder');
    const workDir = join(dir, 'a-file', 'parts');
    const error = await client.videos
      .generateLong({ audio_reference: audio, image_reference: mockFixture('portrait.png') }, { output: join(dir, 'long.mp4'), workDir })
      .catch((e: unknown) => e);
    // The typed destination error, checked before any job: an AvatarVideoError like every other.
    expect(error).toBeInstanceOf(OutputPathError);
    expect(error).toBeInstanceOf(AvatarVideoError);
    expect((error as Error).message).toContain(workDir);
    expect((error as Error).cause).toMatchObject({ code: 'ENOTDIR' });
    expect(server.requests).toHaveLength(0);
  });
});
