/**
 * The `avatar-video` command against the loopback mock, run in this process (test/helpers/cli.ts): every
 * command, exit codes, `--json` output, and Ctrl-C (an abort, as the SIGINT handler makes it) during a wait
 * and an upload. test/e2e/cli.test.ts runs the built bin as a real process: the bin entry, a real SIGINT, `mock`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { run as runDirectly } from '../../src/cli/run.js';
import { AvatarVideo } from '../../src/index.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { wav } from '../helpers/media.js';
import { json, rawServer, video as rawVideo } from '../helpers/raw-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const media = (name: string) => join(root, 'examples/media', name);
const AUDIO = media('speech.wav');
const IMAGE = media('portrait.png');

let mock: MockServer;
/** Jobs that take a minute: for timeouts and Ctrl-C while a job runs. */
let slow: MockServer;
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 300 });
  slow = await startMockServer({ processingMs: 60_000 });
  work = await mkdtemp(join(tmpdir(), 'avatar-video-cli-'));
  closers.push(mock.close, slow.close, () => rm(work, { recursive: true, force: true }));
});

/** Run the CLI in `work` with the mock's key and address. */
/**
 * `call` with setTimeout faked and moved 100 ms every real millisecond: a refused connection's retry backoff (about
 * 1.5 s of it) passes without the test waiting for it, while sockets and the helper's own intervals run for real.
 */
async function withRetriesFastForwarded<T>(call: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const driver = setInterval(() => vi.advanceTimersByTime(100), 1);
  try {
    return await call();
  } finally {
    clearInterval(driver);
    vi.useRealTimers();
  }
}

function run(args: string[], options: Omit<CliOptions, 'cwd'> = {}) {
  const env = { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1', ...options.env };
  return runCli(args, { ...options, cwd: work, env });
}

const isMp4 = (bytes: Buffer) => bytes.subarray(4, 8).toString('latin1') === 'ftyp';

describe('help', () => {
  it.each(['generate', 'validate', 'create', 'get', 'wait', 'download', 'url', 'list', 'mock'])(
    '%s --help describes the command',
    async (command) => {
      const result = await run([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: avatar-video ${command}`);
      expect(result.stdout).toContain('--json');
    },
  );
});

describe('validate', () => {
  it('prints what it found, needs no key, and sends nothing', async () => {
    const before = mock.requests.length;
    const result = await run(['validate', '--audio', AUDIO, '--image', IMAGE], {
      env: { AVATAR_VIDEO_API_KEY: undefined, AVATAR_VIDEO_BASE_URL: undefined },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/audio {3}WAV audio, 8\.\d s/);
    expect(result.stdout).toMatch(/image {3}PNG image, 720x1280/);
    expect(mock.requests.length).toBe(before);
  });

  it('--json gives the measured media', async () => {
    const result = await run(['--json', 'validate', '--audio', AUDIO, '--image', IMAGE]);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({
      valid: true,
      audio: { kind: 'audio', format: 'wav' },
      visual: { kind: 'image', format: 'png', width: 720, height: 1280 },
      generationMode: 'image_to_video',
    });
  });

  it('exits 2 listing every problem at once', async () => {
    const result = await run(['--json', 'validate', '--audio', IMAGE, '--image', IMAGE, '--video', join(work, 'missing.mp4')]);
    expect(result.code).toBe(2);
    const codes = result.json().error.problems.map((problem: { code: string }) => problem.code);
    expect(codes).toEqual(expect.arrayContaining(['unsupported_format', 'multiple_visual_references', 'unreadable_file']));
    expect(result.stderr).toMatch(/--audio: portrait\.png is PNG image; audio must be WAV or MP3/);
    expect(result.stderr).toMatch(/--video: .*missing\.mp4 does not exist/);
    expect(result.stderr).toMatch(/give --image or --video, not both/);
  });

  it('points long audio to generate', async () => {
    const long = join(work, 'long.wav');
    await writeFile(long, wav(61));
    const result = await run(['validate', '--audio', long, '--image', IMAGE]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/61\.0 s of WAV audio; audio must be 1 to 60 s .*avatar-video generate/);
  });
});

describe('generate', () => {
  it('uploads, waits and saves a real MP4, with plain progress lines off a terminal', async () => {
    // A job of 1.5 s on the mock's clock, seen PROCESSING at several tenths of the way even on a busy machine (the
    // estimate needs progress seen moving), run five times faster than real time: its clock moves 50 ms every 10 ms.
    const steady = await startMockServer({ clock: 'manual', processingMs: 1_500 });
    const ticking = setInterval(() => steady.advance(50), 10);
    closers.push(steady.close, () => clearInterval(ticking));
    const output = join(work, 'generated.mp4');
    const result = await run(['generate', '--audio', AUDIO, '--image', IMAGE, '-o', output], {
      env: { AVATAR_VIDEO_API_KEY: steady.apiKey, AVATAR_VIDEO_BASE_URL: steady.baseURL },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^saved .*generated\.mp4 \(.+\) from video vid_\w+\n$/);
    expect(result.stderr).toMatch(/^upload: 100% /m);
    expect(result.stderr).toMatch(/^render: 100% COMPLETE$/m);
    // Once progress has moved, the render line carries the wait's estimate of the time left.
    expect(result.stderr).toMatch(/^render: \d+% PROCESSING, ~\d+ s left$/m);
    expect(result.stderr).toMatch(/^download: 100% /m);
    expect(isMp4(await readFile(output))).toBe(true);
  });

  it('--json prints the finished video, the path and the size', async () => {
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', join(work, 'json.mp4')]);
    expect(result.code).toBe(0);
    const made = result.json();
    expect(made.video).toMatchObject({ status: 'COMPLETE', generation_mode: 'image_to_video' });
    expect(made.path).toBe(join(work, 'json.mp4'));
    expect(made.bytes).toBe((await readFile(made.path)).length);
  });

  it('makes audio over 60 s in segments, with a line per segment, and joins them', async () => {
    const long = join(work, 'long-talk.wav');
    await writeFile(long, wav(75));
    const result = await run(['--json', 'generate', '--audio', long, '--image', IMAGE, '-o', join(work, 'long.mp4')]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^segment 1\/2: downloaded \(vid_\w+\)$/m);
    expect(result.stderr).toMatch(/^segment 2\/2: downloaded \(vid_\w+\)$/m);
    const made = result.json();
    expect(made.segments).toHaveLength(2);
    expect(made.durationSeconds).toBeCloseTo(75, 0);
    expect(isMp4(await readFile(join(work, 'long.mp4')))).toBe(true);
  });

  it('exits 1 when the job fails on its inputs, showing its code and message', async () => {
    // A code about the inputs: the job runner would make a rate-limited one again (test/videos/job-runner.test.ts).
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'face_not_found', message: 'no face in the image' } });
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', join(work, 'failed.mp4')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: Video vid_\w+ failed \(face_not_found\): no face in the image/);
    expect(result.json().error).toMatchObject({ type: 'VideoFailedError', code: 'face_not_found' });
    expect(existsSync(join(work, 'failed.mp4'))).toBe(false);
  });

  it('--base-url overrides the environment', async () => {
    const result = await run(['--base-url', mock.baseURL, 'list'], { env: { AVATAR_VIDEO_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.code).toBe(0);
  });
});

describe('create, get, wait, download, list', () => {
  it('walks a job from creation to a saved file', async () => {
    const created = await run(['--json', 'create', '--audio', AUDIO, '--image', IMAGE]);
    expect(created.code).toBe(0);
    const { id, status } = created.json();
    expect(status).toBe('PROCESSING');

    const got = await run(['--json', 'get', id]);
    expect(got.code).toBe(0);
    expect(got.json().id).toBe(id);

    const waited = await run(['wait', id]);
    expect(waited.code).toBe(0);
    expect(waited.stdout).toMatch(/^status {4}COMPLETE$/m);

    const downloaded = await run(['--json', 'download', id, '-o', join(work, 'downloaded.mp4')]);
    expect(downloaded.code).toBe(0);
    expect(downloaded.json()).toMatchObject({ id, path: join(work, 'downloaded.mp4'), contentType: 'video/mp4' });
    expect(isMp4(await readFile(join(work, 'downloaded.mp4')))).toBe(true);

    const listed = await run(['--json', 'list', '--limit', '100']);
    expect(listed.code).toBe(0);
    expect(listed.json().map((video: { id: string }) => video.id)).toContain(id);
  });

  it('list --limit walks pages until it has enough', async () => {
    const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    await Promise.all([1, 2, 3].map(() => client.videos.create({ audio_reference: AUDIO, image_reference: IMAGE })));
    const result = await run(['list', '--limit', '2']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(3); // the header and two videos
  });

  it('exits 1 when downloading a video that is not COMPLETE', async () => {
    const created = await run(['--json', 'create', '--audio', AUDIO, '--image', IMAGE]);
    mock.setVideo(created.json().id, { status: 'PROCESSING', progress: 10 });
    const id = created.json().id;
    const output = join(work, 'early.mp4');
    const result = await run(['download', id, '-o', output]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PROCESSING; it can be downloaded only once it is COMPLETE/);
    // The job is running and paid for: wait for it, then download.
    expect(result.stderr).toContain(`    avatar-video wait ${id} && avatar-video download ${id} -o ${output}\n`);
  });
});

describe('generate checks the output before paying', () => {
  const uploads = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length;

  it('exits 2 for an output in a folder that does not exist; no create reaches the service, nothing is made', async () => {
    const before = uploads();
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', 'nodir/sub/x.mp4']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--output: the folder .*nodir[/\\]sub does not exist/);
    expect(result.json().error.problems).toEqual([expect.objectContaining({ code: 'output_folder_missing' })]);
    expect(uploads()).toBe(before);
    expect(existsSync(join(work, 'nodir'))).toBe(false);
  });

  it('a 5,000-character output makes a short message that still names the file', async () => {
    const output = join(work, `${'deep/'.repeat(1000)}video.mp4`);
    const result = await run(['generate', '--audio', AUDIO, '--image', IMAGE, '-o', output]);
    expect(result.code).toBe(2);
    expect(result.stderr.length).toBeLessThan(600);
    expect(result.stderr).toMatch(/--output: the folder .*….*\/deep does not exist/);
  });

  it('exits 2 when the output is a folder, and reports it with the input problems', async () => {
    const before = uploads();
    const result = await run(['generate', '--audio', IMAGE, '--image', IMAGE, '-o', work]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--output: .* is a folder; give a file name/);
    expect(result.stderr).toMatch(/--audio: portrait\.png is PNG image/);
    expect(uploads()).toBe(before);
  });

  it('refuses to replace a file already there unless --force is given', async () => {
    const output = join(work, 'kept.mp4');
    await writeFile(output, 'an earlier video');
    const before = uploads();
    const refused = await run(['generate', '--audio', AUDIO, '--image', IMAGE, '-o', output]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/kept\.mp4 already exists; pass --force to replace it/);
    expect(uploads()).toBe(before);
    expect(await readFile(output, 'utf8')).toBe('an earlier video');

    const forced = await run(['generate', '--audio', AUDIO, '--image', IMAGE, '-o', output, '--force']);
    expect(forced.code).toBe(0);
    expect(isMp4(await readFile(output))).toBe(true);
  });

  it('download refuses to replace a file too, before asking the service anything', async () => {
    const output = join(work, 'kept-download.mp4');
    await writeFile(output, 'an earlier video');
    const before = mock.requests.length;
    const result = await run(['download', 'vid_any', '-o', output]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/already exists; pass --force/);
    expect(mock.requests.length).toBe(before);
  });
});

describe('a job that exists is never stranded', () => {
  const slowEnv = () => ({ AVATAR_VIDEO_BASE_URL: slow.baseURL, AVATAR_VIDEO_API_KEY: slow.apiKey });

  it('generate --wait-timeout says seconds, that the job keeps running, and the command to go on', async () => {
    const output = join(work, 'late.mp4');
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', output, '--wait-timeout', '0.3'], {
      env: slowEnv(),
    });
    expect(result.code).toBe(1);
    const { error } = result.json();
    expect(error.videoId).toMatch(/^vid_\w+$/);
    expect(slow.getVideo(error.videoId)?.status).toBe('PROCESSING');
    expect(error.message).toMatch(/did not finish within 0\.3 s \(--wait-timeout; .*the job keeps running/);
    expect(result.stderr).not.toContain('deprecated');
    const resume = `avatar-video wait ${error.videoId} && avatar-video download ${error.videoId} -o ${output}`;
    expect(error.resume).toBe(resume);
    expect(result.stderr).toContain(`video ${error.videoId} keeps running on the service`);
    expect(result.stderr).toContain(`    ${resume}\n`);
    expect(existsSync(output)).toBe(false);
  });

  it('Ctrl-C during the wait names the job and the command to go on, off a terminal too', async () => {
    const output = join(work, 'interrupted.mp4');
    const result = await run(['generate', '--audio', AUDIO, '--image', IMAGE, '-o', output], {
      env: slowEnv(),
      interruptWhen: 'render: 0%',
    });
    expect(result.code).toBe(130);
    const id = /video (vid_\w+) keeps running on the service/.exec(result.stderr)?.[1];
    expect(id).toBeDefined();
    expect(slow.getVideo(id as string)).toBeDefined();
    expect(result.stderr).toContain(`avatar-video wait ${id} && avatar-video download ${id} -o ${output}`);
  });

  it('a download that fails after the job is COMPLETE says how to save it without paying again', async () => {
    mock.failNext({ method: 'GET', path: /^\/files\// }, { status: 403, times: 10 }); // more than the SDK's retries
    const output = join(work, 'unsaved.mp4');
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', output]);
    while (mock.state.takeFailure('GET', '/files/any.mp4')); // leave none for later tests
    expect(result.code).toBe(1);
    const { error } = result.json();
    expect(error.resume).toBe(`avatar-video download ${error.videoId} -o ${output}`);
    expect(result.stderr).toMatch(/is COMPLETE on the service; to save it without paying again/);
    expect(result.stderr).not.toMatch(/videos\.download\(/); // no advice in library syntax
    expect(existsSync(output)).toBe(false);
  });

  it('long audio: a failure after the jobs exist gives the same command, which goes on without creating them again', async () => {
    const long = join(work, 'long-resume.wav');
    await writeFile(long, wav(75));
    const output = join(work, 'long-resume.mp4');
    const args = ['--json', 'generate', '--audio', long, '--image', IMAGE, '-o', output];
    const creates = () => mock.state.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length;
    const before = creates();
    mock.failNext({ method: 'GET', path: /^\/files\// }, { status: 403, times: 10 });
    const failed = await run(args);
    while (mock.state.takeFailure('GET', '/files/any.mp4')); // leave none for the rerun
    expect(failed.code).toBe(1);
    const { error } = failed.json();
    expect(error.resume).toBe(`avatar-video ${args.join(' ')}`);
    expect(error.videoIds).toHaveLength(2);
    expect(failed.stderr).toContain('to go on without paying for them again, run the same command:');
    expect(failed.stderr).toContain(`    ${error.resume}\n`);
    expect(creates() - before).toBe(2);

    const rerun = await run(args);
    expect(rerun.code).toBe(0);
    expect(creates() - before).toBe(2);
    expect(
      rerun
        .json()
        .segments.map((v: { id: string }) => v.id)
        .sort(),
    ).toEqual([...error.videoIds].sort());
    expect(isMp4(await readFile(output))).toBe(true);
  });

  it('a failed job gets no advice to go on: there is nothing left to go on with', async () => {
    mock.enqueueOutcome({ status: 'FAILED', error: { code: 'bad_audio', message: 'no speech found' } });
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', join(work, 'never.mp4')]);
    expect(result.code).toBe(1);
    expect(result.json().error.resume).toBeUndefined();
    expect(result.stderr).not.toMatch(/to go on/);
  });

  it('wait --timeout, the deprecated name of --wait-timeout, still works and says once that it is going', async () => {
    const client = new AvatarVideo({ apiKey: slow.apiKey, baseURL: slow.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const { id } = await client.videos.create({ audio_reference: AUDIO, image_reference: IMAGE });
    const result = await run(['--json', '--base-url', slow.baseURL, 'wait', id, '--timeout', '0.3'], {
      env: { AVATAR_VIDEO_API_KEY: slow.apiKey },
    });
    expect(result.code).toBe(1);
    expect(result.json().error).toMatchObject({ type: 'WaitTimeoutError', videoId: id });
    expect(result.stderr).toMatch(/did not finish within 0\.3 s \(--wait-timeout/);
    expect(result.stderr.match(/--timeout is deprecated .*use --wait-timeout/g)).toHaveLength(1);
  });

  it('wait --wait-timeout says seconds and gives the wait command again, with --base-url kept', async () => {
    const client = new AvatarVideo({ apiKey: slow.apiKey, baseURL: slow.baseURL, logLevel: 'off' });
    closers.push(() => client.close());
    const { id } = await client.videos.create({ audio_reference: AUDIO, image_reference: IMAGE });
    const result = await run(['--json', '--base-url', slow.baseURL, 'wait', id, '--wait-timeout', '0.3'], {
      env: { AVATAR_VIDEO_API_KEY: slow.apiKey },
    });
    expect(result.code).toBe(1);
    expect(result.json().error).toMatchObject({
      type: 'WaitTimeoutError',
      videoId: id,
      resume: `avatar-video --base-url ${slow.baseURL} wait ${id}`,
    });
    expect(result.stderr).toMatch(/did not finish within 0\.3 s/);
    expect(result.stderr).not.toMatch(/\d ms/);
  });

  it('Ctrl-C after the upload went out waits for the answer, then names the job it made and the command to go on', async () => {
    // A service that takes the whole upload and answers only once Ctrl-C has been pressed.
    let pressed!: () => void;
    const ctrlC = new Promise<void>((resolve) => {
      pressed = resolve;
    });
    const server = await rawServer(async (req, res) => {
      for await (const _ of req) {
        /* the whole upload */
      }
      if (req.method === 'POST') await ctrlC;
      json(res, 200, rawVideo('vid_answered'));
    });
    const output = join(work, 'answered-late.mp4');
    closers.push(() => server.close());
    const result = await run(['--json', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', output], {
      env: { AVATAR_VIDEO_BASE_URL: server.url },
      interruptWhen: (stderr) => {
        if (!stderr.includes('upload: 100%')) return false;
        setImmediate(pressed); // the answer leaves after the abort
        return true;
      },
    });
    expect(result.code).toBe(130);
    expect(result.json().error).toMatchObject({ videoId: 'vid_answered' });
    expect(result.stderr).toContain('video vid_answered keeps running on the service');
    expect(result.stderr).toContain(`avatar-video wait vid_answered && avatar-video download vid_answered -o ${output}`);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1); // never sent twice
  });

  it('an unknown id gets no advice to go on', async () => {
    const result = await run(['--json', 'wait', 'vid_missing']);
    expect(result.code).toBe(1);
    expect(result.json().error.resume).toBeUndefined();
  });
});

describe('service address mistakes', () => {
  it('an address without a scheme suggests https://', async () => {
    const result = await run(['list'], { env: { AVATAR_VIDEO_BASE_URL: 'api.example.com' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/AVATAR_VIDEO_BASE_URL api\.example\.com has no scheme: use https:\/\/api\.example\.com/);
  });

  it('plain http to another host says how to allow it; allowed, a refused connection names the address', async () => {
    const refused = await run(['--base-url', 'http://0.0.0.0:9', 'list']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/plain http.*--allow-insecure-http or AVATAR_VIDEO_ALLOW_INSECURE_HTTP=1/);

    for (const allow of [['--allow-insecure-http'], []]) {
      const env = allow.length === 0 ? { AVATAR_VIDEO_ALLOW_INSECURE_HTTP: '1' } : {};
      const result = await withRetriesFastForwarded(() => run([...allow, '--base-url', 'http://0.0.0.0:9', 'list'], { env }));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/Could not connect to 0\.0\.0\.0:9 \(the service address, http:\/\/0\.0\.0\.0:9\/.*refused/);
    }
  });

  it('https at a plain-http port gives the fix, not the same command again: a retry cannot help', async () => {
    const output = join(work, 'never.mp4');
    const https = mock.baseURL.replace('http:', 'https:');
    const result = await run(['--json', '--base-url', https, 'download', 'vid_any', '-o', output]);
    expect(result.code).toBe(1);
    const { error } = result.json();
    expect(error).toMatchObject({ type: 'APIConnectionError', code: 'tls_protocol', videoId: 'vid_any' });
    expect(error.fix).toMatch(/speaks plain http, give its address with http:\/\//);
    expect(result.stderr).toContain(`to fix: ${error.fix}`);
    expect(result.stderr).toMatch(/once that is fixed, to try video vid_any again, run:/);
    expect(result.stderr).not.toMatch(/(^|; )to try video vid_any again/m);
  });

  it('a refused connection on loopback names the address', async () => {
    const result = await withRetriesFastForwarded(() => run(['--json', 'list'], { env: { AVATAR_VIDEO_BASE_URL: 'http://127.0.0.1:9' } }));
    expect(result.code).toBe(1);
    expect(result.json().error.message).toMatch(/Could not connect to 127\.0\.0\.1:9 .*refused/);
  });
});

describe('usage errors', () => {
  it.each([
    [['frob'], /unknown command 'frob'/],
    [['list', '--limit', '0'], /--limit <n>.* is invalid/],
    [['get'], /missing required argument 'id'/],
    [['get', 'a', 'b'], /too many arguments/],
    [['--base-url', 'http://example.com', 'list'], /plain http/],
  ])('%j exits 2', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it.each(['get', 'wait', 'download', 'url'])('%s says that `..`, `.` or a blank is not a video id, and sends nothing', async (command) => {
    const before = mock.requests.length;
    for (const id of ['..', '.', '', ' ']) {
      const result = await run([command, id]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`'${id}' is invalid for argument 'id'. expected a video id, as \`create\` and \`list\` print it`);
      expect(result.stderr).not.toContain('non-empty');
    }
    expect(mock.requests.length).toBe(before);
  });

  it('--json gives a refused command line as JSON on stdout too', async () => {
    const result = await run(['--json', 'get', '..']);
    expect(result.code).toBe(2);
    expect(result.json().error).toMatchObject({ type: 'UsageError', code: 'commander.invalidArgument' });
    expect(result.json().error.message).toMatch(/^command-argument value '\.\.' is invalid .*expected a video id/);
  });
});

describe('help', () => {
  it('mock --help gives one default for --port and says that the mock needs nothing installed', async () => {
    const result = await run(['mock', '--help']);
    expect(result.stdout).toMatch(/--port <port> +port of the API \(default: any free port\)\n/);
    expect(result.stdout).toContain('Needs nothing installed');
    expect(result.stdout).not.toContain('npm install -D msw');
  });

  it('a reader that closes the pipe early (`--help | head -1`) ends nothing with an error; other write errors still surface', async () => {
    let written = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        written += chunk;
        done();
      },
    });
    const stdout = sink as unknown as NodeJS.WriteStream;
    expect(await runDirectly(['node', 'avatar-video', '--help'], { stdout, stderr: stdout, signal: new AbortController().signal })).toBe(0);
    expect(written).toContain('Usage: avatar-video');
    // An 'error' event nobody handles is thrown where it is emitted, as it would end the process.
    const failure = (code: string) => Object.assign(new Error(`write ${code}`), { code });
    expect(() => sink.emit('error', failure('EPIPE'))).not.toThrow();
    expect(() => sink.emit('error', failure('ENOSPC'))).toThrow('write ENOSPC');
  });
});
