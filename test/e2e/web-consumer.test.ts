/**
 * A Worker's TypeScript project against the published declarations: no @types/node, the DOM's and workers' web types
 * only, `avatar-video` resolved with the workerd condition (as wrangler resolves it) and `avatar-video/web` by name.
 * It compiles under strict settings, and the filesystem features are not there to call.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { consumerFolder } from '../helpers/built.js';
import { useCleanup } from '../helpers/fixture.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const closers = useCleanup();

const WORKER = `import AvatarVideo, { MediaValidationError, type VideoContent, type VideoCreateParams } from 'avatar-video';
import { AvatarVideo as FromWeb } from 'avatar-video/web';

const client: FromWeb = new AvatarVideo({ apiKey: 'key', baseURL: 'https://api.example.com', fetch: undefined });

export async function make(audio: File, image: Uint8Array): Promise<ReadableStream<Uint8Array>> {
  const params: VideoCreateParams = { audio_reference: audio, image_reference: image, model: undefined };
  const video = await client.videos.createAndWait(params, { waitTimeout: undefined });
  const content: VideoContent = await client.videos.content(video);
  return content.body;
}

export function rejected(error: unknown): string[] {
  return error instanceof MediaValidationError ? error.issues.map((issue) => issue.field) : [];
}

// @ts-expect-error a path needs a filesystem
client.videos.create({ audio_reference: 'speech.wav', image_reference: new Uint8Array() });
// @ts-expect-error download, generate, generateLong and generateBatch are Node's, Bun's and Deno's
client.videos.generate;
`;

it('a Worker project without @types/node compiles against avatar-video under the workerd condition', { timeout: 300_000 }, async () => {
  const work = await consumerFolder('worker-types-', closers);
  await writeFile(join(work, 'worker.ts'), WORKER);
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    noEmit: true,
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    customConditions: ['workerd'],
    lib: ['es2022', 'dom', 'dom.iterable'],
    types: [],
  };
  await writeFile(join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['worker.ts'] }));
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const output = await run(process.execPath, [tsc, '-p', work], { cwd: work }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout || String(error),
  );
  expect(output).toBe('');
});
