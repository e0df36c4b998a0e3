/**
 * The command and statuses the spec does not list: `generate` shows a job QUEUED before it runs, and `mock
 * --queued-ms` serves such jobs. Run in this process (test/helpers/cli.ts) against the loopback mock.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { startMockServer } from '../../src/testing/index.js';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const AUDIO = join(root, 'examples/media/speech.wav');
const IMAGE = join(root, 'examples/media/portrait.png');

let work: string;
const closers = useCleanup();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'avatar-video-cli-statuses-'));
  closers.push(() => rm(work, { recursive: true, force: true }));
});

describe('generate', () => {
  it('shows the job QUEUED, then PROCESSING, then COMPLETE, and saves it', async () => {
    const mock = await startMockServer({ processingMs: 900, queuedMs: 400 });
    closers.push(mock.close);
    const env = { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1' };
    const result = await runCli(['generate', '--audio', AUDIO, '--image', IMAGE, '-o', join(work, 'queued.mp4')], { cwd: work, env });
    expect(result.code).toBe(0);
    const render = result.stderr.split('\n').filter((line) => line.startsWith('render: '));
    // The first look at the job: QUEUED with no progress, shown as 0% and its status, with no estimate of the time left.
    expect(render[0]).toBe('render: 0% QUEUED');
    expect(render.findIndex((line) => line.includes('PROCESSING'))).toBeGreaterThan(0);
    expect(render.at(-1)).toBe('render: 100% COMPLETE');
    expect(result.stdout).toMatch(/^saved .*queued\.mp4 /);
  });
});

describe('mock --queued-ms', () => {
  it('serves each job QUEUED for that first part of its processing time', async () => {
    let status: string | undefined;
    let asked = false;
    /** Once the mock says where it listens, make a job there; Ctrl-C once its status is known. */
    const madeAJob = (stderr: string) => {
      const baseURL = /base URL (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
      if (baseURL && !asked) {
        asked = true;
        const client = new AvatarVideo({ apiKey: 'test-key', baseURL, logLevel: 'off' });
        void client.videos
          .create({ audio_reference: AUDIO, image_reference: IMAGE })
          .then((video) => {
            status = video.status;
          })
          .finally(() => client.close());
      }
      return status !== undefined;
    };
    const result = await runCli(['mock', '--queued-ms', '60000'], { cwd: work, env: { NO_COLOR: '1' }, interruptWhen: madeAJob });
    expect(result.code).toBe(0);
    expect(status).toBe('QUEUED');
  });

  it('refuses a value that is not whole milliseconds, and names the flag in --help', async () => {
    const refused = await runCli(['mock', '--queued-ms', '-5'], { cwd: work, env: {} });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--queued-ms.*whole number of milliseconds/s);
    const help = await runCli(['mock', '--help'], { cwd: work, env: {} });
    expect(help.stdout).toMatch(/--queued-ms <ms>/);
  });
});

describe('mock --create-rate', () => {
  it("refuses creates beyond the rate with the service's 429 body, and refuses a rate it cannot read", async () => {
    const answers: Array<number | string> = [];
    let asked = false;
    /** Once the mock says where it listens, make two creates there at once; Ctrl-C once both are answered. */
    const createdTwice = (stderr: string) => {
      const baseURL = /base URL (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
      if (baseURL && !asked) {
        asked = true;
        const client = new AvatarVideo({ apiKey: 'test-key', baseURL, logLevel: 'off', maxRetries: 0 });
        const create = () =>
          client.videos.create({ audio_reference: AUDIO, image_reference: IMAGE }).then(
            (video) => answers.push(video.status),
            (error: { status?: number; body?: unknown }) => answers.push(error.status ?? 0, JSON.stringify(error.body)),
          );
        void create()
          .then(create)
          .finally(() => client.close());
      }
      return answers.length >= 3;
    };
    const result = await runCli(['mock', '--create-rate', '1/60'], { cwd: work, env: { NO_COLOR: '1' }, interruptWhen: createdTwice });
    expect(result.code).toBe(0);
    expect(answers).toEqual(['PROCESSING', 429, '{"error":{"type":"rate_limit_exceeded","message":"Rate limit exceeded."}}']);
    const refused = await runCli(['mock', '--create-rate', 'two a minute'], { cwd: work, env: {} });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--create-rate.*<creates>\/<seconds>/s);
  });
});
