import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type FileHandle, mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../src/internal/atomic-file.js';
import { LedgerWriter } from '../../src/lib/batch/ledger.js';
import { type LongManifest, ManifestWriter } from '../../src/lib/long/manifest.js';
import { fakeMp4 } from '../helpers/fake-mp4.js';
import { useCleanup } from '../helpers/fixture.js';

const OLD = 'the file that was here before';
const BODY = fakeMp4(3 << 20);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const closers = useCleanup();
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'avatar-atomic-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Make every write look slow, as on a slow disk: the file switches to async writes after the third. */
function slowDisk() {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += 100));
}

it.each([
  ['synchronous writes', () => {}],
  ['async writes after three slow ones', slowDisk],
])('writes in order with %s, truncates, and replaces the destination only once complete', async (_case, setUp) => {
  setUp();
  const target = join(dir, 'out.bin');
  await writeFile(target, OLD);
  const size = await writeFileAtomic(target, async (file) => {
    expect(file.path).toMatch(/\/\.out\.bin\.[0-9a-f]{12}\.part$/);
    await file.write(Buffer.from('discarded'));
    await file.truncate();
    for (let at = 0; at < 3_000_000; at += 15_000) await file.write(BODY.subarray(at, at + 15_000));
    await file.drain();
    expect(Buffer.from(await file.read(2_999_990, 100)).equals(BODY.subarray(2_999_990, 3_000_000))).toBe(true);
    expect(await readFile(target, 'utf8')).toBe(OLD);
    return file.size;
  });
  expect(size).toBe(3_000_000);
  expect((await readFile(target)).equals(BODY.subarray(0, 3_000_000))).toBe(true);
  expect(await readdir(dir)).toEqual(['out.bin']);
});

it('copies a chunk it has to queue, so the caller may reuse its buffer', async () => {
  slowDisk();
  const target = join(dir, 'out.bin');
  const buffer = Buffer.alloc(10_000);
  const expected: Buffer[] = [];
  await writeFileAtomic(target, async (file) => {
    for (let i = 0; i < 50; i++) {
      buffer.fill(i);
      expected.push(Buffer.from(buffer));
      await file.write(buffer);
      buffer.fill(255); // what the next socket read would do to the buffer
    }
  });
  expect((await readFile(target)).equals(Buffer.concat(expected))).toBe(true);
});

it('removes the temporary file and keeps the old destination when the fill fails', async () => {
  const target = join(dir, 'out.bin');
  await writeFile(target, OLD);
  const failure = new Error('the network went away');
  const error = await writeFileAtomic(target, async (file) => {
    await file.write(Buffer.from('partial'));
    expect((await readdir(dir)).filter((name) => name.endsWith('.part'))).toHaveLength(1);
    throw failure;
  }).catch((e: unknown) => e);
  expect(error).toBe(failure);
  expect(await readdir(dir)).toEqual(['out.bin']);
  expect(await readFile(target, 'utf8')).toBe(OLD);
});

it('flushes the file before the rename and the folder after it', async () => {
  const target = join(dir, 'out.bin');
  await writeFile(target, OLD);
  const seen: string[] = [];
  const probe = await open(target, 'r');
  const prototype = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  const at = async (call: string) => seen.push(`${call}: ${await readFile(target, 'utf8')}`);
  vi.spyOn(prototype, 'datasync').mockImplementation(async () => void (await at('datasync')));
  vi.spyOn(prototype, 'sync').mockImplementation(async () => void (await at('sync')));
  await writeFileAtomic(target, 'new');
  expect(seen).toEqual([`datasync: ${OLD}`, 'sync: new']);
});

it('a crash between the write and the rename leaves the old destination; the next save sweeps its temp file', async () => {
  const target = join(dir, 'out.bin');
  await writeFile(target, OLD);
  // A real process, killed for real inside the fill, after its bytes are written.
  const code = `const { writeFileAtomic } = await import(${JSON.stringify(join(ROOT, 'src/internal/atomic-file.ts'))});
    await writeFileAtomic(process.argv[1], async (file) => { await file.write(Buffer.from('new')); await file.drain(); process.kill(process.pid, 'SIGKILL'); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, target], { cwd: ROOT, stdio: 'inherit' });
  const [, signal] = await once(child, 'exit');
  expect(signal).toBe('SIGKILL');
  const left = (await readdir(dir)).filter((name) => name !== 'out.bin');
  expect(left).toEqual([
    expect.stringMatching(new RegExp(`^\\.out\\.bin\\.${(child.pid ?? 0).toString(16).padStart(8, '0')}[0-9a-f]{4}\\.part$`)),
  ]);
  expect(await readFile(join(dir, left[0] as string), 'utf8')).toBe('new');
  expect(await readFile(target, 'utf8')).toBe(OLD);
  await writeFileAtomic(target, 'newer');
  expect(await readdir(dir)).toEqual(['out.bin']);
});

it('a manifest save that fails leaves no temporary file', async () => {
  await mkdir(join(dir, 'manifest.json')); // the rename over it fails
  const writer = new ManifestWriter(dir, { version: 1, input: {}, segments: [] } as unknown as LongManifest);
  await expect(writer.save()).rejects.toMatchObject({ syscall: 'rename' });
  expect(await readdir(dir)).toEqual(['manifest.json']);
});

it("flushes the ledger's folder when the ledger is new, and each append before it resolves", async () => {
  const calls: string[] = [];
  const probe = await open(import.meta.filename, 'r');
  const prototype = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  vi.spyOn(prototype, 'sync').mockImplementation(async () => void calls.push('sync'));
  vi.spyOn(prototype, 'datasync').mockImplementation(async () => void calls.push('datasync'));
  const ledger = await LedgerWriter.open(dir);
  await ledger.append({ key: 'a', hash: 'h', state: 'creating' });
  await ledger.close();
  expect(calls).toEqual(['sync', 'datasync']);
  calls.length = 0;
  await (await LedgerWriter.open(dir)).close();
  expect(calls).toEqual([]);
});
