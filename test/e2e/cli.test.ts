/**
 * The `avatar-video` command as installed: this run's build (test/setup/build.ts), found through package.json's
 * `bin` and run as a real process against the loopback mock. What only a process shows: the exit status the shell
 * sees, the environment it inherits, a real SIGINT (Ctrl-C) and its cleanup, and `mock`, which runs until Ctrl-C.
 * Every other behaviour of the commands is tested in process, in test/cli/cli.test.ts and test/cli/batch-cli.test.ts.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { type CliOptions, spawnCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { writeHideMsw } from '../helpers/hide-msw.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const media = (name: string) => join(root, 'examples/media', name);
const AUDIO = media('speech.wav');
const IMAGE = media('portrait.png');
const { bin } = await builtPackage();

let mock: MockServer;
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 300 });
  work = await mkdtemp(join(tmpdir(), 'avatar-video-cli-e2e-'));
  closers.push(mock.close, () => rm(work, { recursive: true, force: true }));
});

/** Run the built command in `work` with the mock's key and address. */
function run(args: string[], options: Partial<CliOptions> = {}) {
  const env = { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1', ...options.env };
  return spawnCli(bin, args, { cwd: work, ...options, env });
}

describe('exit codes', () => {
  it('the top-level help lists the environment and the exit codes', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/AVATAR_VIDEO_API_KEY/);
    expect(result.stdout).toMatch(/130 interrupted/);
  });

  it('exits 2 without a key or address, naming both, before sending anything', async () => {
    const result = await run(['generate', '--audio', AUDIO, '--image', IMAGE], {
      env: { AVATAR_VIDEO_API_KEY: undefined, AVATAR_VIDEO_BASE_URL: undefined },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/AVATAR_VIDEO_API_KEY is not set/);
    expect(result.stderr).toMatch(/AVATAR_VIDEO_BASE_URL is not set/);
  });

  it('exits 1 for an unknown video, with the code and request id', async () => {
    const result = await run(['--json', 'get', 'vid_missing']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/video_not_found/);
    expect(result.stderr).toMatch(/request id req_\w+/);
    expect(result.json().error).toMatchObject({ type: 'NotFoundError', status: 404, code: 'video_not_found' });
    expect(result.json().error.requestId).toMatch(/^req_/);
  });
});

describe('Ctrl-C', () => {
  it('stops a wait at once and exits 130', async () => {
    const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const { id } = await client.videos.create({ audio_reference: AUDIO, image_reference: IMAGE });
    mock.setVideo(id, { status: 'PROCESSING', progress: 42 }); // never finishes
    const result = await run(['wait', id], { interruptWhen: 'render: 42%' });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/error: interrupted/);
  });

  it('after the upload went out, waits for the answer; a second Ctrl-C stops at once, saying where to look for the job', async () => {
    // A service that takes the whole upload and never answers.
    const server = await rawServer((req) => {
      req.resume();
    });
    closers.push(server.close);
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', join(work, 'unanswered.mp4')], {
      env: { AVATAR_VIDEO_BASE_URL: server.url },
      interruptWhen: ['upload: 100%', 'Ctrl-C again to stop now'],
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/the service may have created the job anyway/);
    expect(result.json().error).toMatchObject({ type: 'Interrupted', mayHaveCreatedJob: true, resume: 'avatar-video list' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/videos']); // never sent twice
  });

  it('during a download leaves no partial file and keeps the file already there', async () => {
    // A file host that sends the first 64 KiB of 10 MB and then stalls.
    const server = await rawServer((req, res) => {
      if (req.url === '/v1/videos/vid_1') return json(res, 200, video('vid_1', { status: 'COMPLETE', progress: 100 }));
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(10_000_000) });
      res.write(Buffer.alloc(65_536));
    });
    closers.push(server.close);
    const folder = await mkdtemp(join(work, 'download-'));
    const output = join(folder, 'video.mp4');
    await writeFile(output, 'an earlier video');
    const result = await run(['download', 'vid_1', '-o', output, '--force'], {
      env: { AVATAR_VIDEO_BASE_URL: server.url },
      interruptWhen: 'download: 0%',
    });
    expect(result.code).toBe(130);
    expect(await readdir(folder)).toEqual(['video.mp4']);
    expect(await readFile(output, 'utf8')).toBe('an earlier video');
    expect(result.stderr).toContain(`    avatar-video download vid_1 -o ${output} --force\n`);
  });

  it('stops a batch (exit 130) saying to run it again; the rerun waits on the jobs made instead of paying again', async () => {
    const folder = await mkdtemp(join(work, 'batch-'));
    await mkdir(join(folder, 'media'));
    await copyFile(AUDIO, join(folder, 'media/speech.wav'));
    await copyFile(IMAGE, join(folder, 'media/portrait.png'));
    const rows = ['p', 'q'].map((key) => `${key},media/speech.wav,media/portrait.png,,`);
    await writeFile(join(folder, 'items.csv'), ['key,audio,image,video,model', ...rows].join('\n'));
    // Jobs that run until the test moves the mock's clock: still running when Ctrl-C lands, done for the rerun.
    const slow = await startMockServer({ processingMs: 1_500, clock: 'manual' });
    closers.push(slow.close);
    const options = { cwd: folder, env: { AVATAR_VIDEO_API_KEY: slow.apiKey, AVATAR_VIDEO_BASE_URL: slow.baseURL } };
    const running = () => slow.state.listVideos().filter((v) => v.status === 'PROCESSING').length;
    const stopped = await run(['batch', 'items.csv', '--out-dir', 'out', '--concurrency', '2'], {
      ...options,
      interruptWhen: () => running() === 2,
    });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('run the same command again to resume');
    expect(slow.creates).toBe(2);
    slow.advance(1_500);
    const again = await run(['batch', 'items.csv', '--out-dir', 'out', '--json'], options);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ completed: 2, failed: 0 });
    expect(slow.creates).toBe(2);
  });
});

describe('mock', () => {
  it('prints a base URL and key that work, without msw installed, and stops cleanly on Ctrl-C', async () => {
    // The mock bundles the parts of msw it uses: a project's msw, hidden here, is never loaded.
    const hide = await writeHideMsw(work);
    const env = { ...process.env, NODE_OPTIONS: `--require ${hide}` };
    const child = spawn(process.execPath, [bin, '--json', 'mock'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    closers.push(() => child.kill('SIGKILL')); // if the test fails before its Ctrl-C
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
    const { baseURL, apiKey } = JSON.parse(stdout);
    const listed = await run(['--json', 'list'], { env: { AVATAR_VIDEO_BASE_URL: baseURL, AVATAR_VIDEO_API_KEY: apiKey } });
    expect(listed.code).toBe(0);
    expect(listed.json()).toEqual([]);
    child.kill('SIGINT');
    const [code] = await new Promise<[number | null]>((resolve) => child.on('close', (exit) => resolve([exit])));
    expect(code).toBe(0);
  });
});
