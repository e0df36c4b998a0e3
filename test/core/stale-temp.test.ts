import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { removeStaleTempFiles, tempPathFor } from '../../src/internal/atomic-file.js';
import { type LongManifest, ManifestWriter } from '../../src/lib/long/manifest.js';
import { joinVideos, splitAudio } from '../../src/media/index.js';
import { wav } from '../helpers/media.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-stale-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A temp file name of ours for `name`, as the process `pid` would make it. */
const ours = (pid: number, tail: string, name = 'out.mp4') => `.${name}.${pid.toString(16).padStart(8, '0')}${tail}.part`;
/** No process has this pid (Linux pids stay below 2^22). */
const DEAD = 0x7ffffff0;

it('names temp files after the pid and removes only those of dead processes or untouched for an hour', async () => {
  const target = join(dir, 'out.mp4');
  expect(tempPathFor(target)).toMatch(new RegExp(`/\\.out\\.mp4\\.${process.pid.toString(16).padStart(8, '0')}[0-9a-f]{4}\\.part$`));
  const names = [ours(DEAD, 'beef'), ours(process.pid, 'cafe'), '.out.mp4.notours.part', '.other.mp4.7ffffff0beef.part'];
  for (const name of names) await writeFile(join(dir, name), 'partial');
  expect(await removeStaleTempFiles(dir, ['out.mp4'])).toEqual([join(dir, ours(DEAD, 'beef'))]);
  // An hour later, even a file of a live pid is abandoned (the pid was reused).
  expect(await removeStaleTempFiles(dir, ['out.mp4'], Date.now() + 2 * 3600_000)).toEqual([join(dir, ours(process.pid, 'cafe'))]);
  expect((await readdir(dir)).sort()).toEqual(['.other.mp4.7ffffff0beef.part', '.out.mp4.notours.part']);
});

it('leaves files of a similar name alone: other destinations, other tails, no leading dot', async () => {
  const foreign = [
    ours(DEAD, 'beef', 'out.mp4.x'), // another destination whose name starts with ours
    ours(DEAD, 'beef', 'x.out.mp4'),
    `.out.mp4.${DEAD.toString(16)}BEEF.part`, // upper-case hex: not our naming
    `.out.mp4.${DEAD.toString(16)}beef0.part`,
    `.out.mp4.${DEAD.toString(16)}beef.partial`,
    `out.mp4.${DEAD.toString(16)}beef.part`,
  ];
  for (const name of foreign) await writeFile(join(dir, name), 'not ours');
  expect(await removeStaleTempFiles(dir, ['out.mp4'])).toEqual([]);
  expect((await readdir(dir)).sort()).toEqual([...foreign].sort());
});

it('a join removes the temp file a killed join left beside its output', async () => {
  const clip = join(import.meta.dirname, '../fixtures/mock/ref-landscape-5s.mp4');
  const left = join(dir, ours(DEAD, 'dead'));
  await writeFile(left, 'half a join');
  await joinVideos([clip, clip], join(dir, 'out.mp4'));
  expect(await readdir(dir)).toEqual(['out.mp4']);
});

it("a manifest save and a segment split remove a killed writer's temp files, and no one else's", async () => {
  const left = [ours(DEAD, 'dead', 'manifest.json'), ours(DEAD, 'dead', 'segment-000.wav')];
  const live = ours(process.pid, 'cafe', 'segment-000.wav');
  for (const name of [...left, live]) await writeFile(join(dir, name), 'half a file');
  const manifest = { version: 1, input: {}, segments: [] } as unknown as LongManifest;
  await new ManifestWriter(dir, manifest).save();
  await writeFile(join(dir, 'speech.wav'), wav(1));
  await splitAudio(join(dir, 'speech.wav'), { outputDir: dir });
  expect((await readdir(dir)).sort()).toEqual([live, 'manifest.json', 'segment-000.wav', 'speech.wav'].sort());
});
