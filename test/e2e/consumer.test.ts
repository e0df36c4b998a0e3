/**
 * A user's TypeScript project, compiled against the package as built and installed (test/setup/build.ts) with the
 * strictest settings users run: `strict`, `exactOptionalPropertyTypes`, and `skipLibCheck: false` (so the
 * published declarations are checked too). By TypeScript 5.9 and 7 (npm's `latest`), both installed from the
 * registry into the consumer, under `node16` and `nodenext` (an ES module and a CommonJS file) and `bundler`; by 5.9
 * under `node10` too (which reads package.json's `types` and `typesVersions`, not its `exports`), which TypeScript 7
 * removed. Zero errors each.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { npmInstallOrThrow } from '../helpers/npm-install.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir: pkg } = await builtPackage();
const closers = useCleanup();

/** tsc with skipLibCheck: false checks every declaration file it reads (@types/node, undici's, the DOM library's): slower than the suite's default timeout allows. */
const COMPILE_TIMEOUT = 300_000;

const STRICT = { strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true, target: 'es2022' };

/** What a user writes, in either module format: `head` imports the package, the body uses it. */
function program(head: string): string {
  return `${head}
// Options accept \`undefined\` wherever they are optional (exactOptionalPropertyTypes).
declare const signal: AbortSignal | undefined;
export const generateOptions: GenerateOptions = { output: 'out.mp4', signal, timeout: undefined, onProgress: undefined };
export const params: VideoCreateParams = { audio_reference: 'a.wav', image_reference: 'i.png', video_reference: undefined, model: undefined };
export const processorOptions: VideoProcessorOptions = { outputDir: 'out', queue: { rateLimit: async () => {} }, waitTimeout: undefined };
export const probeOptions: ProbeOptions = { fieldName: undefined };
export const proxy: ProxyHandler = createProxyHandler({ apiKey: 'k', baseURL: 'https://api.example.com', authorize: () => true, maxUploadBytes: undefined });
export const nodeProxy = toNodeHandler(proxy);
// A receiver: the raw body as text or bytes, web or Node headers; a refusal's reason to branch on.
export const received = (body: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>): VideoEvent =>
  verifyWebhook(body, headers, 'whsec_c2VjcmV0');
export const refusedFor = (error: unknown): WebhookVerificationReason | undefined => (error instanceof WebhookVerificationError ? error.reason : undefined);
// A type met inside a value (an error's details) is named under the client class.
export const issueCodes = (error: MediaValidationError): AvatarVideo.MediaIssueCode[] => error.issues.map((issue) => issue.code);
// So is every type the entry exports, in either module format and under every moduleResolution.
export const statusOf = (video: AvatarVideo.Video): AvatarVideo.VideoStatus => video.status;
export const sameOptions: AvatarVideo.GenerateOptions = generateOptions;
export async function main(): Promise<number> {
  const server: MockServer = await startMockServer({ port: undefined, clock: 'manual', seed: undefined });
  const client = new AvatarVideo({ apiKey: server.apiKey, baseURL: server.baseURL, timeout: undefined, logger: undefined });
  const video: Video = await client.videos.create(params, { signal, validate: undefined });
  const processor = createVideoProcessor(client, processorOptions);
  const info: MediaInfo = await probeMedia(toFile(new Uint8Array(8), 'talk.wav'), probeOptions);
  const limited = new QueueRateLimitError(5_000);
  const page: VideoPage = await client.videos.list({ limit: undefined, after: undefined });
  const answer: APIPromise<Video> = client.videos.retrieve(video.id, { signal });
  const waited = await client.videos.waitForCompletion((await answer).id, { signal, onProgress: undefined });
  const delivery = await signedEvent(waited, 'whsec_c2VjcmV0', 'video.completed', { at: undefined });
  const event: VideoEvent = received(delivery.body, delivery.headers);
  // Settled values are what they say, without an \`| undefined\` left by an optional option.
  const maxAudio: number = client.limits.maxAudioSeconds;
  const key: string = server.state.options.apiKey;
  // @ts-expect-error pages are made by \`videos.list\`, not by users
  new VideoPage();
  await server.close();
  return page.data.length + maxAudio + key.length + (waited.progress ?? 0) + processor.length + (info.durationSeconds ?? 0) + limited.delayMs + event.data.created_at;
}
`;
}

const ESM = program(`import AvatarVideo, {
  type APIPromise,
  type GenerateOptions,
  MediaValidationError,
  toFile,
  type Video,
  type VideoCreateParams,
  VideoPage,
} from 'avatar-video';
import { type MockServer, signedEvent, startMockServer } from 'avatar-video/testing';
import { createVideoProcessor, QueueRateLimitError, type VideoProcessorOptions } from 'avatar-video/bullmq';
import { type MediaInfo, type ProbeOptions, probeMedia } from 'avatar-video/media';
import { createProxyHandler, type ProxyHandler, toNodeHandler } from 'avatar-video/proxy';
import { type VideoEvent, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from 'avatar-video/webhooks';`);

const CJS = program(`import AvatarVideo = require('avatar-video');
import testing = require('avatar-video/testing');
import VideoPage = AvatarVideo.VideoPage;
type APIPromise<T> = AvatarVideo.APIPromise<T>;
type GenerateOptions = AvatarVideo.GenerateOptions;
type Video = AvatarVideo.Video;
type VideoCreateParams = AvatarVideo.VideoCreateParams;
import MediaValidationError = AvatarVideo.MediaValidationError;
const { toFile } = AvatarVideo;
type MockServer = testing.MockServer;
const { signedEvent, startMockServer } = testing;
import bullmq = require('avatar-video/bullmq');
type VideoProcessorOptions = bullmq.VideoProcessorOptions;
const { createVideoProcessor, QueueRateLimitError } = bullmq;
import media = require('avatar-video/media');
type MediaInfo = media.MediaInfo;
type ProbeOptions = media.ProbeOptions;
const { probeMedia } = media;
import proxyEntry = require('avatar-video/proxy');
type ProxyHandler = proxyEntry.ProxyHandler;
const { createProxyHandler, toNodeHandler } = proxyEntry;
import webhooks = require('avatar-video/webhooks');
type VideoEvent = webhooks.VideoEvent;
type WebhookVerificationReason = webhooks.WebhookVerificationReason;
import WebhookVerificationError = webhooks.WebhookVerificationError;
const { verifyWebhook } = webhooks;`);

/** A project folder in the consumer: its files, a tsconfig, and a node_modules/@types holding only @types/node. */
async function project(files: Record<string, string>, compilerOptions: Record<string, unknown>): Promise<string> {
  const work = await consumerFolder('project-', closers);
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(work, name), text)));
  // The folder sits inside this repository, whose node_modules/@types TypeScript would also take in; a user's
  // project has @types/node of its own (for what the install adds, see the last test).
  await mkdir(join(work, 'node_modules/@types'), { recursive: true });
  await symlink(join(root, 'node_modules/@types/node'), join(work, 'node_modules/@types/node'), 'dir');
  const typeRoots = [join(work, 'node_modules/@types')];
  const sources = Object.keys(files).filter((name) => /\.[cm]?ts$/.test(name));
  await writeFile(
    join(work, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...STRICT, ...compilerOptions, typeRoots }, files: sources }),
  );
  return work;
}

/** The compilers users run, by the alias each is installed under in the consumer: 5.9 and npm's `latest`, 7. */
const COMPILERS = [
  { name: 'TypeScript 5.9', alias: 'typescript-5.9', spec: 'typescript@5.9', major: 5 },
  { name: 'TypeScript 7', alias: 'typescript-7', spec: 'typescript@7', major: 7 },
] as const;
type Compiler = (typeof COMPILERS)[number];

let compilers: string;
beforeAll(async () => {
  // From the registry into a folder of the consumer, as a user's project has them (not this repository's own).
  compilers = await consumerFolder('compilers-', closers);
  await writeFile(join(compilers, 'package.json'), JSON.stringify({ name: 'compilers', private: true }));
  const specs = COMPILERS.map(({ alias, spec }) => `${alias}@npm:${spec}`);
  await npmInstallOrThrow(['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs], {
    cwd: compilers,
    timeout: COMPILE_TIMEOUT,
  });
}, COMPILE_TIMEOUT);

/** `compiler`'s version and its report on the project: '' when it compiles. */
async function compile(compiler: Compiler, work: string): Promise<{ version: string; report: string }> {
  const tsc = join(compilers, 'node_modules', compiler.alias, 'bin/tsc');
  const { stdout } = await run(process.execPath, [tsc, '--version']);
  const report = await run(process.execPath, [tsc, '-p', work], { cwd: work, timeout: COMPILE_TIMEOUT }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout || String(error),
  );
  return { version: stdout.trim(), report };
}

/** Each setting users compile under: its files (an ES module, and a CommonJS file where the setting has both). */
const SETTINGS: Array<{ name: string; options: Record<string, unknown>; files: Record<string, string> }> = [
  {
    name: 'node16',
    options: { module: 'node16', moduleResolution: 'node16' },
    files: { 'package.json': JSON.stringify({ type: 'module' }), 'app.ts': ESM, 'app.cts': CJS },
  },
  {
    name: 'nodenext',
    options: { module: 'nodenext', moduleResolution: 'nodenext' },
    files: { 'package.json': JSON.stringify({ type: 'module' }), 'app.ts': ESM, 'app.cts': CJS },
  },
  // What `npm init -y` makes (`type: commonjs`), as with Vite, Next.js or esbuild: index.d.ts, through `import`.
  {
    name: 'bundler',
    options: { module: 'preserve', moduleResolution: 'bundler' },
    files: { 'package.json': JSON.stringify({ type: 'commonjs' }), 'app.ts': ESM },
  },
];

describe.each(COMPILERS)('a strict consumer project, by $name', (compiler) => {
  it.each(SETTINGS)(
    'compiles with no error under $name',
    async ({ files, options }) => {
      const { version, report } = await compile(compiler, await project(files, options));
      expect(version).toMatch(new RegExp(`^Version ${compiler.major}\\.`));
      expect(report).toBe('');
    },
    COMPILE_TIMEOUT,
  );

  // node10 reads `types` and `typesVersions` (avatar-video/testing, /bullmq, /media, /proxy, /webhooks), not `exports`.
  it(
    compiler.major < 7 ? 'compiles with no error under node10, the subpaths through typesVersions' : 'refuses node10, which it removed',
    async () => {
      const files = { 'package.json': JSON.stringify({ type: 'commonjs' }), 'app.ts': ESM };
      const { report } = await compile(compiler, await project(files, { module: 'commonjs', moduleResolution: 'node10' }));
      if (compiler.major < 7) expect(report).toBe('');
      else expect(report).toMatch(/TS5108: Option 'moduleResolution=node10' has been removed/);
    },
    COMPILE_TIMEOUT,
  );
});

describe('the install', () => {
  // Every @types package an install puts in node_modules/@types joins every program of a project that does not
  // list `types`, and is checked with skipLibCheck: false. mediabunny depends on @types/dom-webcodecs and
  // @types/dom-mediacapture-transform, which do not compile beside TypeScript's DOM library (or without it): the
  // package ships mediabunny's own build instead of depending on it (THIRD-PARTY-NOTICES.md).
  it('an install of the package adds no @types package to the project', async () => {
    expect(await typesInstalledWith(pkg)).toEqual([]);
  });
});

/** The @types packages among the production dependencies of the package in `dir`, at any depth. */
async function typesInstalledWith(dir: string): Promise<string[]> {
  const found = new Set<string>();
  const visit = async (from: string) => {
    const manifest = JSON.parse(await readFile(join(from, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (found.has(name)) continue;
      found.add(name);
      await visit(packageDir(name, from));
    }
  };
  await visit(dir);
  return [...found].filter((name) => name.startsWith('@types/')).sort();
}

/** Where node finds package `name` from `from`: the nearest node_modules/<name> up the folders. */
function packageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`${name} is not installed where ${from} would find it`);
  }
}
