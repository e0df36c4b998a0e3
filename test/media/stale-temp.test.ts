import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { AuthenticationError, AvatarVideo } from '../../src/index.js';
import { joinVideos, splitAudio } from '../../src/media/index.js';
import { useCleanup } from '../helpers/fixture.js';
import { mockFixture, wav } from '../helpers/media.js';
import { json, rawServer } from '../helpers/raw-server.js';

const closers = useCleanup();
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-stale-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});

/** A temp file name of ours for `name`, as the process `pid` would make it. */
const ours = (pid: number, tail: string, name = 'out.mp4') => `.${name}.${pid.toString(16).padStart(8, '0')}${tail}.part`;
/** No process has this pid (Linux pids stay below 2^22). */
const DEAD = 0x7ffffff0;

/** A join of a 5 s clip to itself into `dir`/out.mp4: a save of out.mp4, which sweeps its stale temp files first. */
const CLIP = join(import.meta.dirname, '../fixtures/mock/ref-landscape-5s.mp4');
const joinIntoDir = () => joinVideos([CLIP, CLIP], join(dir, 'out.mp4'));

it('a save removes the temp files of dead processes, and of live ones untouched for an hour, and no others', async () => {
  const live = ours(process.pid, 'cafe');
  const names = [ours(DEAD, 'beef'), live, '.out.mp4.notours.part', '.other.mp4.7ffffff0beef.part'];
  for (const name of names) await writeFile(join(dir, name), 'partial');
  await joinIntoDir();
  expect((await readdir(dir)).sort()).toEqual(['.other.mp4.7ffffff0beef.part', '.out.mp4.notours.part', live, 'out.mp4'].sort());
  // Untouched for two hours, even a file of a live pid is abandoned (the pid was reused).
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  await utimes(join(dir, live), twoHoursAgo, twoHoursAgo);
  await joinIntoDir();
  expect((await readdir(dir)).sort()).toEqual(['.other.mp4.7ffffff0beef.part', '.out.mp4.notours.part', 'out.mp4'].sort());
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
  await joinIntoDir();
  expect((await readdir(dir)).sort()).toEqual([...foreign, 'out.mp4'].sort());
});

it('a join removes the temp file a killed join left beside its output', async () => {
  const left = join(dir, ours(DEAD, 'dead'));
  await writeFile(left, 'half a join');
  await joinIntoDir();
  expect(await readdir(dir)).toEqual(['out.mp4']);
});

it("a manifest save and a segment split remove a killed writer's temp files, and no one else's", async () => {
  const left = [ours(DEAD, 'dead', 'manifest.json'), ours(DEAD, 'dead', 'segment-000.wav')];
  const live = ours(process.pid, 'cafe', 'segment-000.wav');
  for (const name of [...left, live]) await writeFile(join(dir, name), 'half a file');
  await writeFile(join(dir, 'speech.wav'), wav(1));
  await splitAudio(join(dir, 'speech.wav'), { outputDir: dir });
  // generateLong saves its manifest in its workDir before its first create, which this server refuses.
  const server = await rawServer((_req, res) => json(res, 401, { error: { code: 'invalid_api_key', message: 'bad key' } }));
  const client = new AvatarVideo({ apiKey: 'sk-stale-test', baseURL: server.url, logLevel: 'off' });
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  await writeFile(join(dir, 'long.wav'), wav(75));
  const params = { audio_reference: join(dir, 'long.wav'), image_reference: mockFixture('portrait.png') };
  await expect(client.videos.generateLong(params, { output: join(dir, 'long.mp4'), workDir: dir })).rejects.toBeInstanceOf(
    AuthenticationError,
  );
  expect(server.requests.length).toBeGreaterThan(0);
  const kept = [live, 'audio', 'long.wav', 'manifest.json', 'segment-000.wav', 'speech.wav'];
  expect((await readdir(dir)).sort()).toEqual(kept.sort());
});
