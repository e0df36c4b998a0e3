/**
 * The CLI's advice after a failure, as pure functions: which command goes on, quoted for a shell; and what it makes of
 * an error the SDK named with its job (thrown by a real call, over a raw server).
 */
import { describe, expect, it } from 'vitest';
import { cliFailure } from '../../src/cli/failure.js';
import { resumeCommand, shellWord, withRerun, withResume } from '../../src/cli/resume.js';
import { baseUrlProblem, type Failure } from '../../src/cli/session.js';
import { APIConnectionError, AuthenticationError, AvatarVideo, NotFoundError, VideoNotReadyError } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const failure: Failure = { exitCode: 1, lines: ['boom'], json: { error: { type: 'Error', message: 'boom' } } };

describe('resumeCommand', () => {
  it('waits then downloads a running job, downloads a COMPLETE one, and has nothing for an ended one', () => {
    expect(resumeCommand({ id: 'vid_1', status: 'PROCESSING', output: 'a.mp4' })).toBe(
      'avatar-video wait vid_1 && avatar-video download vid_1 -o a.mp4',
    );
    expect(resumeCommand({ id: 'vid_1', status: 'COMPLETE', output: 'a.mp4' })).toBe('avatar-video download vid_1 -o a.mp4');
    expect(resumeCommand({ id: 'vid_1', status: 'PROCESSING' })).toBe('avatar-video wait vid_1');
    expect(resumeCommand({ id: 'vid_1', status: 'FAILED', output: 'a.mp4' })).toBeUndefined();
    expect(resumeCommand({ id: 'vid_1', status: 'CANCELLED' })).toBeUndefined();
  });

  it('keeps the flags that reach the same service and replace the same file', () => {
    const context = { baseUrl: 'http://10.0.0.5:8080', allowInsecureHttp: true, force: true };
    expect(resumeCommand({ id: 'vid_1', status: 'COMPLETE', output: 'a.mp4' }, context)).toBe(
      'avatar-video --base-url http://10.0.0.5:8080 --allow-insecure-http download vid_1 -o a.mp4 --force',
    );
  });

  it('quotes what a shell would split or expand', () => {
    expect(shellWord('out/video-1.mp4')).toBe('out/video-1.mp4');
    expect(shellWord('my video.mp4')).toBe("'my video.mp4'");
    expect(shellWord("it's $HOME.mp4")).toBe(`'it'\\''s $HOME.mp4'`);
    expect(resumeCommand({ id: 'vid_1', status: 'COMPLETE', output: 'my video.mp4' })).toBe(
      "avatar-video download vid_1 -o 'my video.mp4'",
    );
  });
});

describe('withResume', () => {
  it('adds the id and the command, for a person and as JSON fields', () => {
    const resumed = withResume(failure, { id: 'vid_1', status: 'PROCESSING', output: 'a.mp4' }, new Error('x'));
    expect(resumed.lines).toEqual([
      'boom',
      'video vid_1 keeps running on the service (it is paid for); to go on, run:',
      '  avatar-video wait vid_1 && avatar-video download vid_1 -o a.mp4',
    ]);
    expect(resumed.json.error).toMatchObject({
      videoId: 'vid_1',
      resume: 'avatar-video wait vid_1 && avatar-video download vid_1 -o a.mp4',
    });
  });

  it('says nothing without a job, or for an id the service does not know', () => {
    expect(withResume(failure, undefined, new Error('x'))).toBe(failure);
    const notFound = new NotFoundError({ status: 404, message: 'no such video', code: 'video_not_found', headers: {}, body: null });
    expect(withResume(failure, { id: 'vid_x', output: 'a.mp4' }, notFound)).toBe(failure);
  });

  it('takes the status from a not-ready error: download of a running job becomes wait, then download', () => {
    const error = new VideoNotReadyError({ id: 'vid_1', status: 'PROCESSING' } as never);
    expect(withResume(failure, { id: 'vid_1', output: 'a.mp4' }, error).json.error.resume).toBe(
      'avatar-video wait vid_1 && avatar-video download vid_1 -o a.mp4',
    );
  });

  it('after an upload with no answer, points to list instead of running again', () => {
    const resumed = withResume(failure, undefined, new Error('interrupted'), { uploadSent: true, baseUrl: 'https://api.example.com' });
    expect(resumed.json.error).toMatchObject({ mayHaveCreatedJob: true, resume: 'avatar-video --base-url https://api.example.com list' });
  });
});

describe('withRerun', () => {
  it('gives the same command line again, quoted, with the job ids, for a person and as JSON fields', () => {
    const rerun = withRerun(failure, ['generate', '--audio', 'long talk.wav', '-o', 'out.mp4'], ['vid_1', 'vid_2']);
    const command = "avatar-video generate --audio 'long talk.wav' -o out.mp4";
    expect(rerun.lines).toEqual([
      'boom',
      "the segments' jobs (vid_1, vid_2) are recorded beside the output; to go on without paying for them again, run the same command:",
      `  ${command}`,
    ]);
    expect(rerun.json.error).toMatchObject({ videoIds: ['vid_1', 'vid_2'], resume: command });
  });
});

describe('baseUrlProblem', () => {
  it('suggests https:// for an address without a scheme', () => {
    expect(baseUrlProblem('api.example.com', '--base-url', false)?.message).toMatch(/no scheme: use https:\/\/api\.example\.com/);
    expect(baseUrlProblem('localhost:4010', 'AVATAR_VIDEO_BASE_URL', false)?.message).toMatch(
      /^AVATAR_VIDEO_BASE_URL .*https:\/\/localhost:4010/,
    );
  });

  it('plain http: fine on loopback or when allowed, else names the flag and the variable', () => {
    expect(baseUrlProblem('http://127.0.0.1:4010', '--base-url', false)).toBeUndefined();
    expect(baseUrlProblem('http://localhost', '--base-url', false)).toBeUndefined();
    expect(baseUrlProblem('http://api.internal', '--base-url', true)).toBeUndefined();
    expect(baseUrlProblem('https://api.example.com', '--base-url', false)).toBeUndefined();
    expect(baseUrlProblem('http://api.internal', '--base-url', false)?.message).toMatch(
      /--allow-insecure-http or AVATAR_VIDEO_ALLOW_INSECURE_HTTP=1/,
    );
  });
});

describe('after a connection failure no retry can fix', () => {
  const failed = (code: 'tls_certificate' | 'proxy_auth' | 'proxy_refused' | 'timeout', context = {}) =>
    cliFailure(new APIConnectionError('failed.', { code, origin: 'file-host', host: 'cdn.example.com' }), false, context);

  it("says what to change, in the CLI's terms, for a person and as JSON", () => {
    const untrusted = failed('tls_certificate', { command: 'npx avatar-video' });
    expect(untrusted.fix).toMatch(/cdn\.example\.com's certificate.*NODE_EXTRA_CA_CERTS=\/path\/ca\.pem npx avatar-video \.\.\.$/);
    expect(untrusted.lines.at(-1)).toBe(`to fix: ${untrusted.fix}`);
    expect(untrusted.json.error).toMatchObject({ code: 'tls_certificate', fix: untrusted.fix });
    const proxy = { proxyInUse: { host: 'proxy.internal:3128', from: 'HTTPS_PROXY' } };
    expect(failed('proxy_auth', proxy).fix).toBe(
      "put the proxy's credentials in its address: HTTPS_PROXY=http://user:pass@proxy.internal:3128",
    );
    expect(failed('proxy_refused', proxy).fix).toMatch(
      /^the proxy proxy\.internal:3128 does not let the request to cdn\.example\.com through: list that host in NO_PROXY/,
    );
    // A timeout may pass: no fix, and the usual advice.
    expect(failed('timeout').fix).toBeUndefined();
    expect(failed('timeout').json.error.fix).toBeUndefined();
  });

  it('gives the command that goes on as one for once it is fixed, never as a plain run again', () => {
    const untrusted = failed('tls_certificate');
    const resumed = withResume(untrusted, { id: 'vid_1', status: 'COMPLETE', output: 'a.mp4' }, new Error('x'));
    expect(resumed.lines.slice(-2)).toEqual([
      'video vid_1 is COMPLETE on the service; once that is fixed, to save it without paying again, run:',
      '  avatar-video download vid_1 -o a.mp4',
    ]);
    const unseen = withResume(untrusted, { id: 'vid_1', output: 'a.mp4' }, new Error('x'));
    expect(unseen.lines.at(-2)).toBe('once that is fixed, to try video vid_1 again, run:');
    const rerun = withRerun(untrusted, ['generate', '-o', 'out.mp4'], ['vid_1']);
    expect(rerun.lines.at(-2)).toBe(
      "the segments' jobs (vid_1) are recorded beside the output; once that is fixed, this command goes on without paying for them again:",
    );
    expect(rerun.lines.join('\n')).not.toContain('run the same command');
  });
});

describe('cliFailure of an error that names its job', () => {
  const closers = useCleanup();

  it('drops the SDK call from the message (the CLI adds its own command) and keeps the id', async () => {
    // The job is created, then the wait's poll is refused: the SDK names vid_1 and the call that goes on with it.
    const server = await rawServer((req, res) =>
      req.method === 'POST' ? json(res, 200, video('vid_1')) : json(res, 401, { error: { code: 'unauthorized', message: 'bad key' } }),
    );
    const client = new AvatarVideo({ apiKey: 'sk-resume-test', baseURL: server.url, logLevel: 'off', maxRetries: 0 });
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const params = { audio_reference: new Uint8Array([1, 2, 3]), image_reference: png };
    const unauthorised = await client.videos.createAndWait(params, { validate: false, pollInterval: 10 }).catch((e: unknown) => e);
    expect(unauthorised).toBeInstanceOf(AuthenticationError);
    expect((unauthorised as Error).message).toBe(
      `401 unauthorized: bad key. Video vid_1 was created and may still be running: call videos.waitForCompletion('vid_1').`,
    );
    const described = cliFailure(unauthorised, false);
    // The message names the status and code already; the id, gone with the advice, is named after it.
    // A 401's fix names the variable the key came from (there is no key flag).
    const fix =
      'the service did not accept the key in AVATAR_VIDEO_API_KEY: export the key this service issued (for the mock, the one `avatar-video mock` prints)';
    expect(described.lines).toEqual(['401 unauthorized: bad key', '(video vid_1)', `to fix: ${fix}`]);
    expect(described.json.error).toMatchObject({
      type: 'AuthenticationError',
      message: '401 unauthorized: bad key',
      status: 401,
      videoId: 'vid_1',
    });
    // A message that does not name the status gets it named after it too.
    const bare = new AuthenticationError({ status: 401, message: 'bad key', headers: {}, body: null });
    expect(cliFailure(bare, false).lines).toEqual(['bad key', '(status 401)', `to fix: ${fix}`]);
  });
});
