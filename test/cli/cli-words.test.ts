/**
 * The CLI's words a newcomer meets (issue 37): every hint names the command as it was run (`npx avatar-video ...`
 * when npm started it: src/cli/invocation.ts), a 401 names AVATAR_VIDEO_API_KEY, and Ctrl-C on a terminal says one
 * thing once: the CLI's report, not the SDK's warning drawn into the progress bar before it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { run as runDirectly } from '../../src/cli/run.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { runCli } from '../helpers/cli.js';
import { useCleanup } from '../helpers/fixture.js';
import { speechLikeWav } from '../helpers/media.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const AUDIO = join(root, 'examples/media/speech.wav');
const IMAGE = join(root, 'examples/media/portrait.png');
/** What npx sets: the CLI then suggests `npx avatar-video ...`. */
const VIA_NPX = { npm_command: 'exec' };

let mock: MockServer;
let slow: MockServer;
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  mock = await startMockServer({ processingMs: 200 });
  slow = await startMockServer({ processingMs: 60_000 });
  work = await mkdtemp(join(tmpdir(), 'avatar-cli-words-'));
  closers.push(mock.close, slow.close, () => rm(work, { recursive: true, force: true }));
});

const run = (args: string[], env: Record<string, string | undefined> = {}) =>
  runCli(args, { cwd: work, env: { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL, NO_COLOR: '1', ...env } });

describe('hints name the command as run', () => {
  it('long audio given to create suggests `npx avatar-video generate` when npx started it', async () => {
    const long = join(work, 'long.wav');
    await writeFile(long, speechLikeWav(70));
    const viaNpx = await run(['create', '--audio', long, '--image', IMAGE], VIA_NPX);
    expect(viaNpx.code).toBe(2);
    expect(viaNpx.stderr).toContain('`npx avatar-video generate` makes longer videos in segments');
    const fromShell = await run(['create', '--audio', long, '--image', IMAGE]);
    expect(fromShell.stderr).toContain('`avatar-video generate` makes longer videos in segments');
    expect(fromShell.stderr).not.toContain('npx');
  });

  it('create --help follows up with the command as run', async () => {
    const help = await run(['create', '--help'], VIA_NPX);
    expect(help.stdout).toContain('Follow up with `npx avatar-video wait <id>` and `npx avatar-video download <id>`.');
  });
});

describe('a key the service refuses', () => {
  it('names AVATAR_VIDEO_API_KEY, and the mock for a key to try', async () => {
    const result = await run(['--json', 'list'], { ...VIA_NPX, AVATAR_VIDEO_API_KEY: 'sk_not_this_one' });
    expect(result.code).toBe(1);
    const { error } = result.json();
    expect(error).toMatchObject({ type: 'AuthenticationError', status: 401 });
    expect(error.fix).toContain('AVATAR_VIDEO_API_KEY');
    expect(error.fix).toContain('`npx avatar-video mock`');
    expect(result.stderr).toContain(`to fix: ${error.fix}`);
    expect(result.stderr).not.toContain('sk_not_this_one');
  });
});

/** A stream that records what is written and says it is a terminal, as a shell's stderr is. */
function terminal(): { stream: NodeJS.WriteStream; text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY: true, columns: 100, rows: 30, cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return { stream, text: () => written };
}

describe('Ctrl-C on a terminal', () => {
  it('prints the CLI’s report once, naming the job and the command to go on, and not the SDK’s warning', async () => {
    const output = join(work, 'interrupted.mp4');
    const stderr = terminal();
    const stdout = terminal();
    const controller = new AbortController();
    const pressed = setInterval(() => {
      if (slow.state.listVideos().length > 0) controller.abort(new Error('interrupted (Ctrl-C)'));
    }, 20);
    const previous = { key: process.env.AVATAR_VIDEO_API_KEY, url: process.env.AVATAR_VIDEO_BASE_URL };
    process.env.AVATAR_VIDEO_API_KEY = slow.apiKey;
    process.env.AVATAR_VIDEO_BASE_URL = slow.baseURL;
    let code: number;
    try {
      const argv = ['node', 'avatar-video', 'generate', '--audio', AUDIO, '--image', IMAGE, '-o', output];
      code = await runDirectly(argv, { stdout: stdout.stream, stderr: stderr.stream, signal: controller.signal });
    } finally {
      clearInterval(pressed);
      process.env.AVATAR_VIDEO_API_KEY = previous.key;
      process.env.AVATAR_VIDEO_BASE_URL = previous.url;
    }
    expect(code).toBe(130);
    const text = stderr.text();
    const id = slow.state.listVideos()[0]?.id as string;
    // The SDK's "video ... was created, but the call stopped" is the CLI's report said twice.
    expect(text).not.toContain('[avatar-video]');
    expect(text).not.toContain('was created, but the call stopped');
    expect(text.split(`wait ${id}`).length - 1).toBe(1);
    expect(text).toMatch(/\nerror: interrupted/);
  });
});
