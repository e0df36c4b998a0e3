import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { AvatarVideo, MediaValidationError, toFile } from '../../src/index.js';
import { validateCreateParams } from '../../src/media/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, readMockFixture, wav } from '../helpers/media.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const closers = useCleanup();

const issuesOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e) => e);
  expect(error).toBeInstanceOf(MediaValidationError);
  return (error as MediaValidationError).issues;
};

describe('validateCreateParams', () => {
  it('accepts an image job and reports what it found', async () => {
    const result = await validateCreateParams({
      audio_reference: toFile(wav(2), 'speech.wav'),
      image_reference: mockFixture('portrait.png'),
    });
    expect(result.generationMode).toBe('image_to_video');
    expect(result.audio).toMatchObject({ kind: 'audio', format: 'wav', durationSeconds: 2 });
    expect(result.visual).toMatchObject({ kind: 'image', format: 'png' });
    expect(result.warnings.join()).toMatch(/only \d+x\d+/);
  });

  it('accepts a video job', async () => {
    const result = await validateCreateParams({ audio_reference: wav(2), video_reference: mockFixture('ref-portrait-12s.mp4') });
    expect(result.generationMode).toBe('video_to_video');
    expect(result.visual.kind).toBe('video');
    expect(result.visual.durationSeconds).toBeCloseTo(12, 1);
  });

  it('lists every problem at once', async () => {
    const issues = await issuesOf(
      validateCreateParams({
        audio_reference: toFile(wav(64.2), 'speech.wav'),
        image_reference: mockFixture('portrait.png'),
        video_reference: mockFixture('ref-landscape-5s.mp4'),
        caption: 'hello',
      } as never),
    );
    expect(issues.map((issue) => issue.code).sort()).toEqual(
      ['duration_out_of_range', 'duration_out_of_range', 'multiple_visual_references', 'unknown_field'].sort(),
    );
    const audio = issues.find((issue) => issue.field === 'audio_reference');
    expect(audio?.message).toBe('speech.wav is 64.2 s of WAV audio; audio must be 1 to 60 s');
    const ref = issues.find((issue) => issue.field === 'video_reference' && issue.code === 'duration_out_of_range');
    expect(ref?.message).toMatch(/ref-landscape-5s\.mp4 is 5\.0 s of MP4 video; a video reference must be 10 to 60 s/);
  });

  it('requires audio and one visual reference', async () => {
    const issues = await issuesOf(validateCreateParams({} as never));
    expect(issues.map((issue) => issue.code)).toEqual(['missing_audio', 'missing_visual_reference']);
  });

  it('reads the format from the bytes: a PNG named .mp3 is refused as audio, named .jpg accepted as PNG', async () => {
    const png = readMockFixture('portrait.png');
    const issues = await issuesOf(
      validateCreateParams({ audio_reference: toFile(png, 'voice.mp3'), image_reference: toFile(png, 'face.jpg') }),
    );
    expect(issues).toEqual([
      { field: 'audio_reference', code: 'unsupported_format', message: 'voice.mp3 is PNG image; audio must be WAV or MP3' },
    ]);
  });

  it('refuses audio as a visual reference and garbage as unsupported', async () => {
    const issues = await issuesOf(
      validateCreateParams({ audio_reference: toFile(new Uint8Array(64).fill(7), 'noise.wav'), image_reference: toFile(wav(2), 'me.png') }),
    );
    expect(issues.map((i) => [i.field, i.code])).toEqual([
      ['audio_reference', 'unsupported_format'],
      ['image_reference', 'unsupported_format'],
    ]);
  });

  it('treats both duration bounds as inclusive, and reads a near miss precisely', async () => {
    await expect(validateCreateParams({ audio_reference: wav(1), image_reference: mockFixture('portrait.png') })).resolves.toBeDefined();
    await expect(validateCreateParams({ audio_reference: wav(60), image_reference: mockFixture('portrait.png') })).resolves.toBeDefined();
    const issues = await issuesOf(
      validateCreateParams({ audio_reference: toFile(wav(60.02), 'a.wav'), image_reference: mockFixture('portrait.png') }),
    );
    expect(issues[0]?.message).toBe('a.wav is 60.020 s of WAV audio; audio must be 1 to 60 s');
    await issuesOf(validateCreateParams({ audio_reference: wav(0.99), image_reference: mockFixture('portrait.png') }));
  });

  it('widens the audio limit only when asked', async () => {
    await expect(
      validateCreateParams({ audio_reference: wav(90), image_reference: mockFixture('portrait.png') }, { maxAudioSeconds: 180 }),
    ).resolves.toBeDefined();
  });

  it('warns, without rejecting, about an unknown model name', async () => {
    const result = await validateCreateParams({
      audio_reference: wav(2),
      image_reference: mockFixture('portrait.png'),
      model: 'service-video-9',
    });
    expect(result.warnings.join()).toMatch(/service-video-9/);
  });
});

describe('create validates before uploading', () => {
  async function capture() {
    const server = await rawServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      bodies.push(Buffer.concat(chunks).toString('latin1'));
      json(res, 200, video());
    });
    const bodies: string[] = [];
    const client = new AvatarVideo({ apiKey: 'key-validate-1', baseURL: server.url, logLevel: 'off' });
    closers.push(server.close, () => client.close());
    return { server, client, bodies };
  }

  it('sends nothing when the inputs are bad', async () => {
    const { server, client } = await capture();
    await expect(client.videos.create({ audio_reference: wav(0.5), image_reference: mockFixture('portrait.png') })).rejects.toBeInstanceOf(
      MediaValidationError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('audio longer than one job takes: the message names videos.generateLong; the issue stays a fact', async () => {
    const { server, client } = await capture();
    const params = { audio_reference: toFile(wav(70), 'talk.wav'), image_reference: mockFixture('portrait.png') };
    const error = await client.videos.generate(params, { output: join(tmpdir(), 'never.mp4') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MediaValidationError);
    const fact = 'talk.wav is 70.0 s of WAV audio; audio must be 1 to 60 s';
    expect((error as Error).message).toBe(`${fact}. For audio over 60 s, videos.generateLong makes the video in segments and joins them.`);
    expect((error as Error).stack).toContain('videos.generateLong');
    // The CLI words its own advice from the issue, so the SDK's call is not in it.
    expect((error as MediaValidationError).issues[0]?.message).toBe(fact);
    // Several problems: the advice follows the list; the limit in force is the one named.
    const both = { audio_reference: wav(200), image_reference: toFile(wav(2), 'me.png') };
    const wide = new AvatarVideo({ apiKey: 'key-validate-2', baseURL: server.url, logLevel: 'off', limits: { maxAudioSeconds: 180 } });
    closers.push(() => wide.close());
    const many = await wide.videos.create(both).catch((e: unknown) => e);
    expect((many as Error).message).toMatch(/^2 problems with the inputs:\n- .*\n- .*\nFor audio over 180 s, videos\.generateLong /);
    expect(many).toBeInstanceOf(MediaValidationError);
    // Audio that is too short is not a case for generateLong.
    const short = await client.videos
      .create({ audio_reference: wav(0.5), image_reference: mockFixture('portrait.png') })
      .catch((e: unknown) => e);
    expect((short as Error).message).not.toMatch(/generateLong/);
    expect(server.requests).toHaveLength(0);
  });

  it('names and types the parts after the detected format', async () => {
    const { client, bodies } = await capture();
    await client.videos.create({
      audio_reference: toFile(wav(2), 'talk.mp3'),
      image_reference: toFile(readMockFixture('portrait.png'), 'face.jpeg'),
    });
    expect(bodies[0]).toContain('name="audio_reference"; filename="talk.wav"\r\nContent-Type: audio/wav');
    expect(bodies[0]).toContain('name="image_reference"; filename="face.png"\r\nContent-Type: image/png');
  });

  it('skips the checks with validate: false', async () => {
    const { server, client } = await capture();
    await client.videos.create({ audio_reference: wav(0.5), image_reference: mockFixture('portrait.png') }, { validate: false });
    expect(server.requests).toHaveLength(1);
  });

  it('probes a one-shot stream, uploads it whole, and removes the spooled copy', async () => {
    const { client, bodies } = await capture();
    // A temporary folder of this test's own: other test files make `avatar-video-*` folders in the shared one.
    const spools = mkdtempSync(join(tmpdir(), 'spool-test-'));
    closers.push(() => rm(spools, { recursive: true, force: true }));
    vi.stubEnv('TMPDIR', spools);
    const audio = Buffer.from(wav(3));
    const seen: string[] = [];
    const stream = Readable.from([audio.subarray(0, 1000), audio.subarray(1000)]);
    stream.on('end', () => seen.push(...readdirSync(spools))); // the copy exists while the stream is read
    try {
      await client.videos.create({ audio_reference: stream, image_reference: mockFixture('portrait.png') });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(bodies[0]).toContain(audio.subarray(44, 200).toString('latin1'));
    expect(bodies[0]?.length).toBeGreaterThan(audio.length);
    expect(seen).toEqual([expect.stringMatching(/^avatar-video-/)]);
    expect(readdirSync(spools)).toEqual([]);
  });
});
