/**
 * Which of the SDK's source files one `videos.generate` call runs code in, a function other than the module's top
 * level (the mock's own files left out): the breadth a reader follows to understand the call. V8's precise coverage is
 * reset after a warm-up call, so the list is of one steady-state call, not of loading.
 *
 *   npx tsx bench/footprint.ts
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether a function other than the module's top level (the one range that starts at the file's start) ran. */
const ranInside = (f: { ranges: { startOffset: number; count: number }[] }) =>
  (f.ranges[0]?.startOffset ?? 0) > 0 && f.ranges.some((r) => r.count > 0);

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

const { AvatarVideo } = await import('../src/index.js');
const { startMockServer } = await import('../src/testing/index.js');
const media = new URL('../examples/media/', import.meta.url);
const src = fileURLToPath(new URL('../src/', import.meta.url));
const mock = await startMockServer();
const client = new AvatarVideo({ apiKey: mock.apiKey, baseURL: mock.baseURL });
const dir = await mkdtemp(join(tmpdir(), 'footprint-'));
const params = { audio_reference: new URL('speech.wav', media), image_reference: new URL('portrait.png', media) };
try {
  await client.videos.generate(params, { output: join(dir, 'warm.mp4') });
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await client.videos.generate(params, { output: join(dir, 'out.mp4') });
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = result
    .filter((script) => script.url.startsWith('file://') && script.functions.some(ranInside))
    .map((script) => relative(src, fileURLToPath(script.url)))
    .filter((file) => !file.startsWith('..') && !file.startsWith('testing/'))
    .sort();
  console.log(files.join('\n'));
  console.log(`${files.length} files of src/ run by one generate call (the mock's excluded)`);
} finally {
  await client.close();
  await mock.close();
  await rm(dir, { recursive: true, force: true });
  session.disconnect();
}
