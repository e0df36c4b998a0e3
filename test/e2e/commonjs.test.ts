/**
 * The built package as a CommonJS user meets it: `require('avatar-video')` by name, through package.json's
 * `exports`, from a folder outside the sources, and the published `.d.cts`/`.d.ts` that TypeScript reads.
 * The build is this run's (test/setup/build.ts: tsup, then the CommonJS step of `npm run build`).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir: pkg } = await builtPackage();
let work: string;
const closers = useCleanup();

beforeAll(async () => {
  // A folder of this file's own inside the consumer, which finds the package in the consumer's node_modules.
  work = await consumerFolder('commonjs-', closers);
});

/** Run a CommonJS script in the consumer folder and parse the JSON it prints. */
async function requireInChild(source: string): Promise<Record<string, unknown>> {
  const file = join(work, 'probe.cjs');
  await writeFile(file, source);
  const { stdout } = await run(process.execPath, [file], { cwd: work });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('CommonJS', () => {
  it("require('avatar-video') is the client class, carrying .AvatarVideo, .default and the named exports", async () => {
    const seen = await requireInChild(`
      const AvatarVideo = require('avatar-video');
      const { AvatarVideoError, UploadInputError, APIError, VERSION, toFile } = require('avatar-video');
      const client = new AvatarVideo({ apiKey: 'key-cjs-1', baseURL: 'http://127.0.0.1:9' });
      console.log(JSON.stringify({
        type: typeof AvatarVideo,
        name: AvatarVideo.name,
        selfNamed: AvatarVideo.AvatarVideo === AvatarVideo,
        selfDefault: AvatarVideo.default === AvatarVideo,
        instance: client instanceof AvatarVideo.AvatarVideo,
        hasVideos: typeof client.videos.create,
        uploadErrorIsSdkError: new UploadInputError('x') instanceof AvatarVideoError,
        apiError: typeof APIError,
        version: VERSION,
        toFile: typeof toFile,
        resolved: require.resolve('avatar-video'),
      }));
      client.close();
    `);
    expect(seen).toMatchObject({
      type: 'function',
      name: 'AvatarVideo',
      selfNamed: true,
      selfDefault: true,
      instance: true,
      hasVideos: 'function',
      uploadErrorIsSdkError: true,
      apiError: 'function',
      toFile: 'function',
    });
    expect(seen.version).toBe(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version);
    expect(seen.resolved).toBe(join(pkg, 'dist', 'index.cjs'));
  });

  it('the .d.cts describes that: `import X = require()` is the class and its namespace holds the types', async () => {
    await writeFile(
      join(work, 'consumer.cts'),
      `import AvatarVideo = require('avatar-video');
const client: AvatarVideo = new AvatarVideo({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
const same: typeof AvatarVideo = AvatarVideo.AvatarVideo;
const viaDefault: typeof AvatarVideo = AvatarVideo.default;
const error: AvatarVideo.AvatarVideoError = new AvatarVideo.UploadInputError('x');
const params: AvatarVideo.VideoCreateParams = { audio_reference: 'a.wav', image_reference: 'i.png' };
async function status(id: string): Promise<AvatarVideo.VideoStatus> {
  const video: AvatarVideo.Video = await client.videos.retrieve(id);
  return video.status;
}
// @ts-expect-error a misspelt field of Video
const misspelt = (video: AvatarVideo.Video) => video.staus;
export = { same, viaDefault, error, params, status, misspelt };
`,
    );
    await writeFile(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'node16', moduleResolution: 'node16', strict: true, noEmit: true, types: ['node'], skipLibCheck: true },
        files: ['consumer.cts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', work], { cwd: work }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe('');
  });
});

describe('published declarations', () => {
  // The transport (which holds the key), the job limiter and the engines behind the methods are internal:
  // none may reach the published types, not even as a parameter type.
  it.each(['index.d.ts', 'index.d.cts'])('%s holds no @internal member, nothing named secret and no internal class', async (name) => {
    const types = await readFile(join(pkg, 'dist', name), 'utf8');
    expect(types.match(/^.*@internal.*$/gm) ?? []).toEqual([]);
    expect(types.match(/^.*\bsecret\b\s*[(:].*$/gm) ?? []).toEqual([]);
    expect(types.match(/^.*\bget secret\b.*$/gm) ?? []).toEqual([]);
    const internal = /\b(Transport|ConcurrencyLimiter|APIRequest|LongRunVideos|downloadVideo|splitCreateAndWait)\b/;
    expect(types.split('\n').filter((line) => internal.test(line))).toEqual([]);
  });
});
