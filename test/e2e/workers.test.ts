/**
 * The package in Cloudflare's runtime, as a Worker's author meets it: the packed tarball installed in a fresh project,
 * examples/workers/worker.ts bundled there by esbuild with the conditions wrangler uses (so `avatar-video` is the web
 * entry), and run in workerd (miniflare) with no compatibility flag, talking to the mock on loopback. The README's
 * Workers block runs the same way, and answers a create and a bad file as the example does.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeImports } from '../../scripts/node-imports.js';
import { type MockServer, startMockServer } from '../../src/testing/index.js';
import { builtPackage } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { blocksUnder } from '../helpers/readme.js';
import { userProject } from '../helpers/user-project.js';
import { bundleWorker } from '../helpers/worker-bundle.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const media = join(root, 'examples/media');
const closers = useCleanup();
const { tarball } = await builtPackage();

/** The example Worker and the README's, bundled from the installed package as wrangler bundles them. */
async function bundleWorkers(): Promise<[string, string]> {
  const project = await userProject('avatar-workers-', tarball, [], closers);
  expect(project.installs.at(-1)?.code, project.installs.at(-1)?.stderr).toBe(0);
  await copyFile(join(root, 'examples/workers/worker.ts'), join(project.dir, 'worker.ts'));
  const [readme] = blocksUnder('### Workers, Edge and browsers: the web entry', ['ts']);
  await writeFile(join(project.dir, 'readme-worker.ts'), readme?.code ?? '');
  return [await bundleWorker(project.dir, 'worker.ts'), await bundleWorker(project.dir, 'readme-worker.ts')];
}

/** A multipart form of the named files, as bytes and its content type (miniflare takes plain bodies). */
async function form(files: Record<string, { name: string; bytes: Uint8Array }>) {
  const data = new FormData();
  for (const [field, { name, bytes }] of Object.entries(files)) data.set(field, new Blob([bytes as BlobPart]), name);
  const request = new Request('http://form.invalid', { method: 'POST', body: data });
  return { body: new Uint8Array(await request.arrayBuffer()), contentType: request.headers.get('content-type') as string };
}

const file = async (name: string) => ({ name, bytes: new Uint8Array(await readFile(join(media, name))) });

let script: string;
let mock: MockServer;
let worker: Miniflare;
let readmeWorker: Miniflare;

beforeAll(async () => {
  const [example, readme] = await bundleWorkers();
  script = example;
  mock = await startMockServer({ processingMs: 800 });
  closers.push(() => mock.close());
  const start = (code: string) => {
    const started = new Miniflare({
      modules: true,
      script: code,
      compatibilityDate: '2026-07-01',
      bindings: { AVATAR_VIDEO_API_KEY: mock.apiKey, AVATAR_VIDEO_BASE_URL: mock.baseURL },
    });
    closers.push(() => started.dispose());
    return started;
  };
  worker = start(example);
  readmeWorker = start(readme);
}, 300_000);

async function post(files: Record<string, { name: string; bytes: Uint8Array }>, to = worker) {
  const { body, contentType } = await form(files);
  const response = await to.dispatchFetch('http://worker.test/videos', {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('the worker example in workerd', () => {
  it('bundles from the package’s worker entry: no node: module and no undici in the Worker', () => {
    expect(script).toContain('avatar-video');
    expect(nodeImports(script)).toEqual([]);
    // The check itself finds what it looks for, with or without `node:`.
    expect(nodeImports('import { stat } from "fs/promises";\nconst u = await import("undici");')).toEqual(['fs/promises', 'undici']);
  });

  it('creates from the uploaded bytes, waits for the job and answers its signed address', { timeout: 60_000 }, async () => {
    const created = await post({ audio: await file('speech.wav'), image: await file('portrait.png') });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ status: 'PROCESSING' });
    expect(mock.creates).toBe(1);
    const done = await worker.dispatchFetch(`http://worker.test/videos/${created.json.id}`);
    const { video, contentURL } = (await done.json()) as { video: { id: string; status: string }; contentURL: string };
    expect(video).toMatchObject({ id: created.json.id, status: 'COMPLETE' });
    // The file host's signed address, unrequested: another origin than the API's, and it serves the MP4.
    expect(new URL(contentURL).origin).not.toBe(new URL(mock.baseURL).origin);
    const mp4 = new Uint8Array(await (await fetch(contentURL)).arrayBuffer());
    expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe('ftyp');
  });

  it('refuses a bad image in the Worker with MediaValidationError, and creates nothing', { timeout: 30_000 }, async () => {
    const before = mock.creates;
    const png = await file('portrait.png');
    // A PNG cut off inside its header.
    const refused = await post({ audio: await file('speech.wav'), image: { name: 'portrait.png', bytes: png.bytes.subarray(0, 20) } });
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ error: 'MediaValidationError', issues: [expect.objectContaining({ field: 'image_reference' })] });
    expect(mock.creates).toBe(before);
  });
});

describe("the README's Workers block in workerd", () => {
  it('creates from the uploaded bytes: 201 with the job', { timeout: 30_000 }, async () => {
    const before = mock.creates;
    const created = await post({ audio: await file('speech.wav'), image: await file('portrait.png') }, readmeWorker);
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ status: 'PROCESSING' });
    expect(mock.creates).toBe(before + 1);
  });

  it('answers a bad image as the example does: 422 with the issues, and creates nothing', { timeout: 30_000 }, async () => {
    const before = mock.creates;
    const png = await file('portrait.png');
    const bad = { audio: await file('speech.wav'), image: { name: 'portrait.png', bytes: png.bytes.subarray(0, 20) } };
    const [fromReadme, fromExample] = [await post(bad, readmeWorker), await post(bad)];
    expect(fromReadme.status).toBe(422);
    expect(fromReadme).toEqual(fromExample);
    expect(mock.creates).toBe(before);
  });

  it('answers a form without the two files with 400, as the example does', { timeout: 30_000 }, async () => {
    const missing = { audio: await file('speech.wav') };
    const [fromReadme, fromExample] = [await post(missing, readmeWorker), await post(missing)];
    expect(fromReadme.status).toBe(400);
    expect(fromReadme).toEqual(fromExample);
  });
});
