/**
 * The README's "Rate limits and cost" code, as pasted: each ```ts block of the section runs against the mock, with
 * the key and address in the environment as the README's set-up puts them and the sample media for its paths.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';
import { startMockServer } from '../../src/testing/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { blocksUnder } from '../helpers/readme.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const closers = useCleanup();

/** Run `code` as a module of the repository (so `avatar-video` is the sources), its `./` paths the shipped samples. */
async function run(code: string): Promise<unknown[][]> {
  const folder = await mkdtemp(join(root, 'test/.readme-'));
  closers.push(() => rm(folder, { recursive: true, force: true }));
  const file = join(folder, 'block.ts');
  await writeFile(file, code.replaceAll("'./", `'${join(root, 'samples')}/`));
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  try {
    await import(pathToFileURL(file).href);
    return log.mock.calls;
  } finally {
    log.mockRestore();
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

it('the README\'s "Rate limits and cost" blocks run as printed: the declared rate shown, the plan made with no request', async () => {
  const mock = await startMockServer();
  closers.push(() => mock.close());
  vi.stubEnv('AVATAR_VIDEO_BASE_URL', mock.baseURL);
  vi.stubEnv('AVATAR_VIDEO_API_KEY', mock.apiKey);
  const [declare, plan, ...rest] = blocksUnder('## Rate limits and cost', ['ts']).map((block) => block.code);
  expect(rest).toEqual([]);
  expect(await run(declare as string)).toEqual([
    [{ source: 'declared', rate: { limit: 2, windowSeconds: 60 }, waiting: 0, nextCreateAt: undefined }],
  ]);
  const printed = await run(plan as string);
  // 2 jobs of the short sample, billed one 6 s step each; at 2 creates a minute both go at once: one 120 s job.
  expect(printed[0]).toEqual([2, 12, 120]);
  expect(printed.slice(1)).toEqual([
    ['hello', 1, 6, []],
    ['second', 1, 6, []],
  ]);
  expect(mock.requests).toEqual([]);
});
