/**
 * What loading the built package costs a user, seen in fresh processes: `import('avatar-video')` and
 * `require('avatar-video')` load the SDK's own code and no other package; undici and zod come with the first
 * request, the multipart encoders with the first upload, the vendored mediabunny with the first MP4/MOV probed. A preload records every package the process loads, by
 * `import` (a module hook) and by `require` (require.cache).
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtPackage, consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';
import { json, rawServer, video } from '../helpers/raw-server.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const { dir } = await builtPackage();
let work: string;
const closers = useCleanup();

/** A preload: `globalThis.loadedPackages()` lists the packages loaded so far (node_modules/<name>), sorted. */
const TRACK = `
import { createRequire, register } from 'node:module';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const imported = new Set();
let flushed;
port1.on('message', (message) => (message === 'flushed' ? flushed() : imported.add(message)));
port1.unref();
register('./hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
const packageOf = (file) => /.*node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(file)?.[1];
globalThis.loadedPackages = async () => {
  // The hooks post each module before it loads; the answer to this message comes after all of them.
  await new Promise((resolve) => {
    flushed = resolve;
    port1.ref();
    port1.postMessage('flush');
  });
  port1.unref();
  const files = [...[...imported].filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url)), ...Object.keys(createRequire(import.meta.url).cache)];
  return [...new Set(files.map(packageOf).filter(Boolean))].sort();
};
globalThis.loadedFiles = async () => {
  await globalThis.loadedPackages();
  return [...[...imported].filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url)), ...Object.keys(createRequire(import.meta.url).cache)];
};
`;
const HOOKS = `
let port;
export function initialize(data) {
  port = data.port;
  port.on('message', () => port.postMessage('flushed'));
  port.unref();
}
export async function load(url, context, next) {
  port.postMessage(url);
  return next(url, context);
}
`;

/** What the probe does with the SDK, as `${load}` left it in `sdk`; it prints the packages loaded at each step. */
const STEPS = `
  const seen = { imported: await loadedPackages() };
  const client = new sdk.AvatarVideo({ apiKey: 'sk-lean-1234', baseURL: process.argv[2], logLevel: 'off' });
  seen.client = await loadedPackages();
  await client.videos.retrieve('vid_1');
  seen.request = await loadedPackages();
  await client.videos.create({ audio_reference: process.argv[3], image_reference: process.argv[4] });
  seen.upload = await loadedPackages();
  await client.close();
  console.log(JSON.stringify(seen));
`;

/** Creates checked locally, from a WAV and a PNG, then from a WAV and an MP4: whether the vendored mediabunny is loaded after each. */
const MEDIABUNNY_STEPS = `
const sdk = await import('avatar-video');
const vendored = async () => (await loadedFiles()).some((file) => /[\\\\/]dist[\\\\/]vendor[\\\\/]mediabunny/.test(file));
const [baseURL, wav, png, mp4] = process.argv.slice(2);
const client = new sdk.AvatarVideo({ apiKey: 'sk-lean-1234', baseURL, logLevel: 'off' });
const seen = { imported: await vendored() };
await client.videos.create({ audio_reference: wav, image_reference: png }, { validate: true });
seen.image = await vendored();
await client.videos.create({ audio_reference: wav, video_reference: mp4 }, { validate: true });
seen.video = await vendored();
await client.close();
console.log(JSON.stringify(seen));
`;

beforeAll(async () => {
  // Inside the consumer, which finds the package in its node_modules.
  work = await consumerFolder('lean-', closers);
  await writeFile(join(work, 'track.mjs'), TRACK);
  await writeFile(join(work, 'hooks.mjs'), HOOKS);
  await writeFile(join(work, 'probe.mjs'), `const sdk = await import('avatar-video');\n${STEPS}`);
  await writeFile(join(work, 'files.mjs'), "await import('avatar-video');\nconsole.log(JSON.stringify(await loadedFiles()));");
  await writeFile(join(work, 'mediabunny.mjs'), MEDIABUNNY_STEPS);
  await writeFile(join(work, 'probe.cjs'), `(async () => {\n  const sdk = require('avatar-video');\n${STEPS}})();`);
});

describe.each(['probe.mjs', 'probe.cjs'])('%s: the packages loaded', (probe) => {
  it('after import: none but the SDK; after the first request: undici (a valid video needs no zod); after the first upload: the encoders', async () => {
    const api = await rawServer((_req, res) => json(res, 200, video('vid_1')));
    closers.push(api.close);
    const media = (name: string) => join(root, 'examples/media', name);
    const args = ['--import', './track.mjs', probe, api.url, media('speech.wav'), media('portrait.png')];
    const { stdout } = await run(process.execPath, args, { cwd: work });
    expect(JSON.parse(stdout)).toEqual({
      imported: ['avatar-video'],
      client: ['avatar-video'],
      request: ['avatar-video', 'undici'],
      upload: ['avatar-video', 'form-data-encoder', 'undici'],
    });
    expect(api.requests.map((request) => request.method)).toEqual(['GET', 'POST']);
  });
});

describe('mediabunny', () => {
  it('loads with the first MP4/MOV probed, not with the import nor a create from an image', async () => {
    const api = await rawServer((_req, res) => json(res, 200, video('vid_1')));
    closers.push(api.close);
    const media = (name: string) => join(root, 'examples/media', name);
    const args = ['--import', './track.mjs', 'mediabunny.mjs', api.url, media('speech.wav'), media('portrait.png'), media('presenter.mp4')];
    const { stdout } = await run(process.execPath, args, { cwd: work });
    expect(JSON.parse(stdout)).toEqual({ imported: false, image: false, video: true });
    expect(api.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });
});

describe('the MCP server', () => {
  it("is bundled into the command alone: import('avatar-video') loads none of its code", async () => {
    // The premise: the package holds the server (the mcp command's chunk), so a load of it would show.
    const dist = join(dir, 'dist');
    const chunks = (await readdir(dist)).filter((name) => name.endsWith('.js'));
    const holding = [];
    for (const name of chunks) if ((await readFile(join(dist, name), 'utf8')).includes('notifications/progress')) holding.push(name);
    expect(holding.length).toBeGreaterThan(0);
    const { stdout } = await run(process.execPath, ['--import', './track.mjs', 'files.mjs'], { cwd: work });
    const loaded = (JSON.parse(stdout) as string[]).filter((file) => file.includes('avatar-video'));
    expect(loaded.length).toBeGreaterThan(0);
    for (const file of loaded) expect(await readFile(file, 'utf8'), file).not.toContain('notifications/progress');
  });
});
