/**
 * What a Worker that uses the SDK sends: a small Worker that creates a video from bytes (an image and audio, checked
 * locally), waits for it and asks its `contentURL`, importing `avatar-video` as a Worker's bundler finds it (the built
 * package's own exports, conditions workerd, worker, browser), beside the same Worker written with openai's client
 * (the devDependency: a file upload, a video create with the image, polls, then its content). Both are bundled by
 * esbuild the same two ways: `--bundle --splitting --minify --format=esm` (what loads up front: the entry and the
 * chunks it imports statically; what loads lazily: the rest), and as one file without splitting.
 * Target (issue 34): avatar-video's Worker at most 60 KB gzipped up front. KB here is KiB (1,024 bytes), as in the
 * issue's figures; gzip is at its default level, each file on its own, as a server sends them.
 *
 *   npx tsx bench/web-bundle.ts [--build]
 *
 * Bundles dist/ as it is; `--build` runs `npm run build` first.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { repoTemp } from './support/repo-temp.js';
import { run } from './support/spawn.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const TARGET_UP_FRONT_GZIP = 60 * 1024;
const KB = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const AVATAR_VIDEO_WORKER = `
import { AvatarVideo } from 'avatar-video';
export default {
  async fetch(request, env) {
    const client = new AvatarVideo({ apiKey: env.AVATAR_VIDEO_API_KEY, baseURL: env.AVATAR_VIDEO_BASE_URL });
    const form = await request.formData();
    const params = { audio_reference: form.get('audio'), image_reference: form.get('image') };
    const created = await client.videos.create(params, { validate: true });
    const video = await client.videos.waitForCompletion(created);
    return Response.json({ id: video.id, url: await client.videos.contentURL(video) });
  },
};
`;

// openai has neither audio input nor a wait for videos: the audio goes up as a file, and the Worker polls itself.
const OPENAI_WORKER = `
import OpenAI, { toFile } from 'openai';
export default {
  async fetch(request, env) {
    const client = new OpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL });
    const form = await request.formData();
    const audio = await client.files.create({ file: await toFile(form.get('audio'), 'speech.wav'), purpose: 'user_data' });
    const image = await toFile(form.get('image'), 'portrait.png', { type: 'image/png' });
    let video = await client.videos.create({ model: 'sora-2', prompt: 'speaks ' + audio.id, input_reference: image });
    while (video.status === 'queued' || video.status === 'in_progress') {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      video = await client.videos.retrieve(video.id);
    }
    const content = await client.videos.downloadContent(video.id);
    return new Response(content.body, { headers: { 'content-type': 'video/mp4' } });
  },
};
`;

/** Strings that survive minification, by which a chunk is known to hold the library (its sources may be bundled into dist/ already). */
const MARKERS = {
  zod: ['"$ZodType"', '"ZodError"'],
  mediabunny: ['Input has an unsupported or unrecognizable format.', 'Unsupported edit list entry: media rate must be 1.'],
} as const;
type Library = keyof typeof MARKERS;

interface Chunk {
  path: string;
  raw: number;
  gzip: number;
  holds: Library[];
}

interface Split {
  upFront: Chunk[];
  lazy: Chunk[];
}

const sum = (chunks: Chunk[], key: 'raw' | 'gzip') => chunks.reduce((total, chunk) => total + chunk[key], 0);

/** The libraries a chunk holds: one of their files among its inputs, or one of their strings in its text. */
function librariesIn(text: string, inputs: string[]): Library[] {
  return (Object.keys(MARKERS) as Library[]).filter(
    (library) =>
      inputs.some((input) => input.includes(`node_modules/${library}/`)) || MARKERS[library].some((marker) => text.includes(marker)),
  );
}

/** esbuild as a Worker's bundler runs it, the output kept in memory. */
async function bundle(dir: string, entry: string, splitting: boolean) {
  return build({
    absWorkingDir: dir,
    entryPoints: [entry],
    outdir: join(dir, splitting ? 'split' : 'one'),
    bundle: true,
    splitting,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    // Not the repository's tsconfig.json, whose `paths` lead `avatar-video` to the sources.
    tsconfigRaw: {},
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
}

/** The chunks of a split bundle: the entry and what it imports statically (transitively) load up front, the rest lazily. */
async function split(dir: string, entry: string): Promise<Split> {
  const { outputFiles, metafile } = await bundle(dir, entry, true);
  const outputs: Metafile['outputs'] = metafile.outputs;
  const chunks = new Map<string, Chunk>();
  for (const file of outputFiles.filter((f) => f.path.endsWith('.js'))) {
    const path = relative(dir, file.path);
    const inputs = Object.keys(outputs[path]?.inputs ?? {});
    chunks.set(path, { path, raw: file.contents.length, gzip: gzipSync(file.contents).length, holds: librariesIn(file.text, inputs) });
  }
  const entryChunk = Object.keys(outputs).find((path) => outputs[path]?.entryPoint !== undefined) as string;
  const upFront = new Set<string>();
  const visit = (path: string): void => {
    if (upFront.has(path)) return;
    upFront.add(path);
    for (const imported of outputs[path]?.imports ?? []) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entryChunk);
  const all = [...chunks.values()];
  return { upFront: all.filter((c) => upFront.has(c.path)), lazy: all.filter((c) => !upFront.has(c.path)) };
}

/** The one-file bundle's size, raw and gzipped. */
async function oneFile(dir: string, entry: string): Promise<{ raw: number; gzip: number }> {
  const { outputFiles } = await bundle(dir, entry, false);
  const [file] = outputFiles.filter((f) => f.path.endsWith('.js'));
  if (!file || outputFiles.filter((f) => f.path.endsWith('.js')).length !== 1) throw new Error(`${entry}: not one file`);
  return { raw: file.contents.length, gzip: gzipSync(file.contents).length };
}

/** One chunk of a split bundle: when it loads, its name, its sizes and the libraries it holds. */
function chunkLine(when: string, c: Chunk): string {
  const holds = c.holds.length > 0 ? `, holds ${c.holds.join(' and ')}` : '';
  return `  ${when.padEnd(8)} ${c.path.padEnd(28)} ${KB(c.raw).padStart(10)} ${KB(c.gzip).padStart(10)} gzip${holds}`;
}

/** A folder under the repository's `.tmp/` whose node_modules/avatar-video is this repository, as an installed package is. */
async function workspace(): Promise<string> {
  const dir = await repoTemp('bench-web-bundle-');
  await mkdir(join(dir, 'node_modules'));
  await symlink(ROOT, join(dir, 'node_modules', 'avatar-video'), 'dir');
  await writeFile(join(dir, 'avatar-video-worker.js'), AVATAR_VIDEO_WORKER);
  await writeFile(join(dir, 'openai-worker.js'), OPENAI_WORKER);
  return dir;
}

if (process.argv.includes('--build')) await run('npm', ['run', 'build'], ROOT);
const dir = await workspace();
try {
  const contenders = [
    { name: 'avatar-video', entry: 'avatar-video-worker.js' },
    { name: 'openai', entry: 'openai-worker.js' },
  ];
  const results = [];
  for (const { name, entry } of contenders) results.push({ name, split: await split(dir, entry), one: await oneFile(dir, entry) });
  const [ours, theirs] = results as [(typeof results)[0], (typeof results)[0]];
  const figures = (r: typeof ours) => [
    sum(r.split.upFront, 'raw'),
    sum(r.split.upFront, 'gzip'),
    sum(r.split.lazy, 'raw'),
    sum(r.split.lazy, 'gzip'),
    r.one.raw,
    r.one.gzip,
  ];
  const header = ['up front', 'up front gzip', 'lazy', 'lazy gzip', 'one file', 'one file gzip'];
  console.log('A Worker that creates from bytes, waits and asks for the content, bundled by esbuild (minified, ESM):\n');
  console.log(`| bundle | ${header.join(' | ')} |\n|---|${header.map(() => '---').join('|')}|`);
  for (const r of results) console.log(`| ${r.name} | ${figures(r).map(KB).join(' | ')} |`);
  const ratios = figures(ours).map((value, i) => {
    const base = figures(theirs)[i] as number;
    return base === 0 ? (value === 0 ? '-' : 'n/a') : `${(value / base).toFixed(2)}x`;
  });
  console.log(`| avatar-video / openai | ${ratios.join(' | ')} |`);

  const upFrontGzip = sum(ours.split.upFront, 'gzip');
  const met = upFrontGzip <= TARGET_UP_FRONT_GZIP ? 'met' : 'NOT met';
  console.log(`\navatar-video up front: ${KB(upFrontGzip)} gzipped (target <= ${KB(TARGET_UP_FRONT_GZIP)}; ${met})`);
  for (const r of results) {
    console.log(`\n${r.name}'s chunks:`);
    for (const c of r.split.upFront) console.log(chunkLine('up front', c));
    for (const c of r.split.lazy) console.log(chunkLine('lazy', c));
  }
  const upFrontHolds = new Set(ours.split.upFront.flatMap((c) => c.holds));
  for (const library of Object.keys(MARKERS) as Library[]) {
    console.log(`${library} up front in avatar-video's Worker: ${upFrontHolds.has(library) ? 'yes' : 'no'}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
