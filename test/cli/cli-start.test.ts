/**
 * A user's first commands, run in this process (test/helpers/cli.ts): `demo` (a video from the package's sample
 * media through the embedded mock, no key), `mock` on a free port or a taken one, the suggested commands named as
 * the user ran the CLI (npx or not), and no progress line after the final `error:` line.
 */
import { pbkdf2, pbkdf2Sync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { commandName } from '../../src/cli/invocation.js';
import { withRerun, withResume } from '../../src/cli/resume.js';
import { run as runDirectly } from '../../src/cli/run.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { type CliOptions, runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { wav } from '../helpers/media.js';
import { summarizeMp4 } from '../helpers/mp4.js';
import { json, rawServer } from '../helpers/raw-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const IMAGE = join(root, 'samples/portrait.png');

let slow: MockServer;
let work: string;
const closers = useCleanup();
/** pbkdf2 iterations (sha256) per ms on this machine. */
const pbkdf2PerMs = (() => {
  const started = performance.now();
  pbkdf2Sync('x', 'y', 20_000, 32, 'sha256');
  return 20_000 / Math.max(0.1, performance.now() - started);
})();

beforeAll(async () => {
  slow = await startMockServer({ processingMs: 60_000 });
  work = await mkdtemp(join(tmpdir(), 'avatar-video-cli-start-'));
  closers.push(slow.close, () => rm(work, { recursive: true, force: true }));
});

function run(args: string[], options: Omit<CliOptions, 'cwd'> = {}) {
  return runCli(args, { ...options, cwd: work, env: { NO_COLOR: '1', ...options.env } });
}

/** A TCP port held by a listener of this test until the file ends. */
async function takenPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

describe('demo', () => {
  it('makes a real MP4 from the sample media through the embedded mock with no key, and says where a real key comes from', async () => {
    const result = await run(['demo', '-o', 'first.mp4'], { env: { AVATAR_VIDEO_API_KEY: undefined, AVATAR_VIDEO_BASE_URL: undefined } });
    expect(result.stderr).not.toMatch(/error:/);
    expect(result.code).toBe(0);
    const path = join(work, 'first.mp4');
    expect(result.stdout).toMatch(new RegExp(`^saved ${path.replace(/[\\/.]/g, '\\$&')} \\([\\d.]+ KiB\\) from video vid_`));
    const mp4 = await summarizeMp4(path);
    // The sample speech is 4.2 s and the portrait is upright: the mock renders as long as the audio, 9:16.
    expect(mp4.durationSeconds).toBeCloseTo(4.2, 0);
    expect(mp4.height).toBeGreaterThan(mp4.width);
    expect(result.stderr).toContain("create an API key in the service's platform dashboard");
    expect(result.stderr).toContain('export AVATAR_VIDEO_API_KEY=<your key>');
    expect(result.stderr).toContain('export AVATAR_VIDEO_BASE_URL=');
    expect(result.stderr).toMatch(/^ {2}3\. avatar-video generate --audio /m);
    expect(result.stderr).toContain(`The sample media is in ${join(root, 'samples')}`);
  });

  it('refuses to replace an existing output before starting anything, unless --force', async () => {
    await writeFile(join(work, 'kept.mp4'), 'mine');
    const refused = await run(['demo', '-o', 'kept.mp4']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/kept\.mp4 already exists; pass --force/);
    expect(await readFile(join(work, 'kept.mp4'), 'utf8')).toBe('mine');
    const forced = await run(['--json', 'demo', '-o', 'kept.mp4', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.json()).toMatchObject({ path: join(work, 'kept.mp4'), video: { status: 'COMPLETE' }, samples: join(root, 'samples') });
  });
});

describe('mock', () => {
  it('picks a free port by default and says which, with the base URL to use', async () => {
    const result = await run(['mock'], { interruptWhen: 'Ctrl-C stops it' });
    expect(result.code).toBe(0);
    const [, port] = /^export AVATAR_VIDEO_BASE_URL=http:\/\/127\.0\.0\.1:(\d+)$/m.exec(result.stdout) ?? [];
    expect(Number(port)).toBeGreaterThan(0);
    expect(result.stderr).toContain(`Mock API running on port ${port} (base URL http://127.0.0.1:${port})`);
  });

  it('a --port that is taken fails with exit 2, naming the port and the way out, with no stack', async () => {
    const port = await takenPort();
    const result = await run(['mock', '--port', String(port)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: port ${port} on 127.0.0.1 is already in use by another program: pick another with --port, or leave --port out to use a free one (\`avatar-video mock\`)\n`,
    );
    const json = await run(['--json', 'mock', '--port', String(port)]);
    expect(json.json().error.problems).toEqual([expect.objectContaining({ code: 'port_in_use' })]);
  });
});

describe('the command a hint names', () => {
  it('is `npx avatar-video` when npm started the CLI (npx, npm exec, an npm script) or from node_modules/.bin, else `avatar-video`', () => {
    expect(commandName('/app/node_modules/.bin/avatar-video', { npm_command: 'exec', npm_lifecycle_event: 'npx' })).toBe(
      'npx avatar-video',
    );
    expect(commandName('/app/node_modules/.bin/avatar-video', { npm_command: 'run', npm_lifecycle_event: 'make' })).toBe(
      'npx avatar-video',
    );
    expect(commandName('/app/node_modules/.bin/avatar-video', { npm_lifecycle_event: 'make' })).toBe('npx avatar-video');
    expect(commandName('C:\\app\\node_modules\\.bin\\avatar-video', {})).toBe('npx avatar-video');
    expect(commandName('/usr/local/bin/avatar-video', {})).toBe('avatar-video');
    expect(commandName('/usr/lib/node_modules/avatar-video/dist/cli.js', {})).toBe('avatar-video');
  });

  const waitArgs = () => ['--base-url', slow.baseURL, 'wait', 'vid_x', '--wait-timeout', '0.2'];

  it('run through npx, the resume hint is `npx avatar-video wait ...`', async () => {
    const id = await createSlowJob();
    const args = waitArgs().map((word) => (word === 'vid_x' ? id : word));
    const viaNpx = await run(args, { env: { AVATAR_VIDEO_API_KEY: slow.apiKey, npm_command: 'exec', npm_lifecycle_event: 'npx' } });
    expect(viaNpx.code).toBe(1);
    expect(viaNpx.stderr).toContain(`\n    npx avatar-video --base-url ${slow.baseURL} wait ${id}\n`);
    const fromShell = await run(args, { env: { AVATAR_VIDEO_API_KEY: slow.apiKey } });
    expect(fromShell.stderr).toContain(`\n    avatar-video --base-url ${slow.baseURL} wait ${id}\n`);
  });

  it('names it so in the rerun of a long run and in the advice after an unanswered upload', () => {
    const failure = { exitCode: 1 as const, lines: ['x'], json: { error: {} } };
    expect(withRerun(failure, ['generate', '--audio', 'a.mp3'], ['vid_1'], 'npx avatar-video').json.error.resume).toBe(
      'npx avatar-video generate --audio a.mp3',
    );
    const unanswered = withResume(failure, undefined, new Error('reset'), { uploadSent: true, command: 'npx avatar-video' });
    expect(unanswered.lines.join(' ')).toContain(
      '`npx avatar-video list`, then `npx avatar-video wait <id>` and `npx avatar-video download <id>`',
    );
  });

  it('a missing key or address suggests the mock as the user ran the CLI', async () => {
    const env = { AVATAR_VIDEO_API_KEY: undefined, AVATAR_VIDEO_BASE_URL: undefined, npm_command: 'exec' };
    const result = await run(['list'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run `npx avatar-video mock` and export the two lines it prints');
  });
});

/** A PROCESSING job on the slow mock (a minute long), made through the API. */
async function createSlowJob(): Promise<string> {
  const created = await run(
    ['--json', '--base-url', slow.baseURL, 'create', '--audio', join(root, 'samples/speech.wav'), '--image', IMAGE],
    {
      env: { AVATAR_VIDEO_API_KEY: slow.apiKey },
    },
  );
  expect(created.code).toBe(0);
  return created.json().id as string;
}

describe('after the final error line', () => {
  it('no progress line follows `error:`, though a read of the file still in flight when the upload was refused ends after it', async () => {
    // libuv's thread pool, where file reads run, kept busy: each read of the audio (1 MiB, over a tenth of a body
    // under 10 MiB) waits its turn, so one is in flight when the service refuses a third of the way in, and it ends
    // after the CLI has printed the failure. The run is the CLI's own, on a stream read after it returns: the process
    // of a user would print the late line then too.
    const busy = keepThreadPoolBusy();
    closers.push(busy.stop);
    const server = await rawServer(async (req, res) => {
      let read = 0;
      for await (const chunk of req) {
        read += (chunk as Buffer).length;
        if (read > Number(req.headers['content-length']) / 3 && !res.headersSent) {
          json(res, 401, { error: { code: 'invalid_api_key', message: 'Invalid API key.' } });
        }
      }
    });
    closers.push(server.close);
    const audio = join(work, 'long.wav');
    await writeFile(audio, wav(50, 100_000));
    const stderr = collected();
    vi.stubEnv('AVATAR_VIDEO_API_KEY', 'sk_test');
    closers.push(() => vi.unstubAllEnvs());
    const argv = ['node', 'avatar-video', '--base-url', server.url, 'create', '--audio', audio, '--image', IMAGE];
    const code = await runDirectly(argv, { stdout: collected().stream, stderr: stderr.stream, signal: new AbortController().signal });
    expect(code).toBe(1);
    await setTimeout(500); // the read in flight ends meanwhile
    busy.stop();
    const lines = stderr.text().trimEnd().split('\n');
    const error = lines.findIndex((line) => line.startsWith('error:'));
    expect(lines.slice(0, error).filter((line) => line.startsWith('upload:')).length).toBeGreaterThan(1);
    // The error and its fix, and nothing of the upload's progress after them.
    expect(lines.slice(error)).toEqual([
      'error: 401 invalid_api_key: Invalid API key.',
      expect.stringMatching(/^ {2}to fix: .*AVATAR_VIDEO_API_KEY/),
    ]);
  });
});

/** A stream that keeps what is written to it, as a pipe would show it. */
function collected() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, text: () => text };
}

/** Keep every thread of libuv's pool busy with 20 ms jobs until stop(), so that each file read waits in line. */
function keepThreadPoolBusy() {
  let running = true;
  const iterations = Math.max(1, Math.round(20 * pbkdf2PerMs));
  const job = () => {
    if (running) pbkdf2('x', 'y', iterations, 32, 'sha256', job);
  };
  for (let i = 0; i < Number(process.env.UV_THREADPOOL_SIZE ?? 4); i++) job();
  return {
    stop: () => {
      running = false;
    },
  };
}
