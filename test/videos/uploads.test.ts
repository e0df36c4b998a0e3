import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AvatarVideo, toFile, UploadInputError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();

/** A server that keeps each multipart body, so tests can compare what arrived byte for byte. */
async function capture() {
  const bodies: Buffer[] = [];
  const server = await rawServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    bodies.push(Buffer.concat(chunks));
    json(res, 200, video());
  });
  const client = new AvatarVideo({ apiKey: 'key-uploads-1', baseURL: server.url, logLevel: 'off' });
  closers.push(server.close, () => client.close());
  return { client, bodies };
}

/** The bytes of one part, cut out of a captured multipart body. */
function part(body: Buffer, field: string): Buffer {
  const start = body.indexOf(`name="${field}"`);
  const dataStart = body.indexOf('\r\n\r\n', start) + 4;
  const boundary = body.subarray(0, body.indexOf('\r\n'));
  return body.subarray(dataStart, body.indexOf(Buffer.concat([Buffer.from('\r\n'), boundary]), dataStart));
}

describe('multipart uploads', () => {
  it('sends exactly the viewed bytes of a large Buffer view and Uint8Array view', async () => {
    const { client, bodies } = await capture();
    const backing = randomBytes(400_000);
    const audio = backing.subarray(1000, 301_000);
    const image = new Uint8Array(backing.buffer, backing.byteOffset + 7, 200_000);
    await client.videos.create({ audio_reference: toFile(audio, 'a.wav'), image_reference: toFile(image, 'i.png') }, { validate: false });
    expect(part(bodies[0]!, 'audio_reference').equals(audio)).toBe(true);
    expect(part(bodies[0]!, 'image_reference').equals(Buffer.from(image))).toBe(true);
  });

  it('sends a multi-chunk stream and a Blob whole and in order', async () => {
    const { client, bodies } = await capture();
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const chunks = [data.subarray(0, 100_000), data.subarray(100_000, 2_000_000), data.subarray(2_000_000)];
    await client.videos.create({ audio_reference: Readable.from(chunks), image_reference: new Blob([data]) }, { validate: false });
    expect(part(bodies[0]!, 'audio_reference').equals(data)).toBe(true);
    expect(part(bodies[0]!, 'image_reference').equals(data)).toBe(true);
  });
});

describe('inputs that cannot be read, refused before any request', () => {
  /** A client whose server counts requests: none may be made for an input that cannot be opened. */
  async function counting() {
    const server = await rawServer((_req, res) => json(res, 200, video()));
    const client = new AvatarVideo({ apiKey: 'key-uploads-2', baseURL: server.url, logLevel: 'off' });
    closers.push(server.close, () => client.close());
    return { client, server };
  }
  const png = toFile(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'me.png');

  it('a missing file is an UploadInputError naming the argument and the path, not a raw ENOENT', async () => {
    const { client, server } = await counting();
    const missing = join(tmpdir(), `avatar-missing-${process.pid}`, 'speech.wav');
    for (const call of [
      () => client.videos.create({ audio_reference: missing, image_reference: png }),
      () =>
        client.videos.generate({ audio_reference: png, image_reference: pathToFileURL(missing) }, { output: join(tmpdir(), 'never.mp4') }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UploadInputError);
      expect((error as Error).message).toMatch(/^(audio|image)_reference: .*speech\.wav does not exist\.$/);
      expect((error as Error).message).toContain(missing);
      expect((error as Error).message).not.toMatch(/ENOENT|stat '/);
      expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a relative path that is missing says where it was looked for; a folder says it is one', async () => {
    const { client } = await counting();
    const relative = await client.videos.create({ audio_reference: 'no-such-speech.wav', image_reference: png }).catch((e: unknown) => e);
    expect((relative as Error).message).toBe(`audio_reference: no-such-speech.wav does not exist (looked in ${process.cwd()}).`);
    const folder = await client.videos.create({ audio_reference: tmpdir(), image_reference: png }).catch((e: unknown) => e);
    expect(folder).toBeInstanceOf(UploadInputError);
    expect((folder as Error).message).toBe(`audio_reference: ${tmpdir()} is a folder.`);
  });

  it('a 5,000-character path makes a short message, keeping its head and its file name', async () => {
    const { client } = await counting();
    const long = join(tmpdir(), `${'deep/'.repeat(1000)}speech.wav`);
    expect(long.length).toBeGreaterThan(5000);
    const error = await client.videos.create({ audio_reference: long, image_reference: png }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadInputError);
    const { message } = error as Error;
    expect(message.length).toBeLessThan(300);
    expect(message).toMatch(new RegExp(`^audio_reference: ${tmpdir()}/deep/deep/.*….*/deep/speech\\.wav `));
  });
});
