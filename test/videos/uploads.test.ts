import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AvatarVideo, toFile } from '../../src/index.js';
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
