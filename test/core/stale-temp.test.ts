import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { joinVideos } from '../../src/index.js';
import { removeStaleTempFiles, tempPathFor } from '../../src/internal/temp-path.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-stale-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ours = (pid: number, tail: string) => `.out.mp4.${pid.toString(16).padStart(8, '0')}${tail}.part`;

it('names temp files after the pid and removes only those of dead processes or untouched for an hour', async () => {
  const target = join(dir, 'out.mp4');
  expect(tempPathFor(target)).toMatch(new RegExp(`/\\.out\\.mp4\\.${process.pid.toString(16).padStart(8, '0')}[0-9a-f]{4}\\.part$`));
  const names = [ours(0x7ffffff0, 'beef'), ours(process.pid, 'cafe'), '.out.mp4.notours.part', '.other.mp4.7ffffff0beef.part'];
  for (const name of names) await writeFile(join(dir, name), 'partial');
  expect(await removeStaleTempFiles(target)).toEqual([join(dir, ours(0x7ffffff0, 'beef'))]);
  // An hour later, even a file of a live pid is abandoned (the pid was reused).
  expect(await removeStaleTempFiles(target, Date.now() + 2 * 3600_000)).toEqual([join(dir, ours(process.pid, 'cafe'))]);
  expect((await readdir(dir)).sort()).toEqual(['.other.mp4.7ffffff0beef.part', '.out.mp4.notours.part']);
});

it('a join removes the temp file a killed join left beside its output', async () => {
  const clip = join(import.meta.dirname, '../fixtures/mock/ref-landscape-5s.mp4');
  const left = join(dir, ours(0x7ffffff0, 'dead'));
  await writeFile(left, 'half a join');
  await joinVideos([clip, clip], join(dir, 'out.mp4'));
  expect(await readdir(dir)).toEqual(['out.mp4']);
});
