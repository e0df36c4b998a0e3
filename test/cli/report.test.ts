/**
 * The batch command's report.csv is saved as every file the SDK writes: whole or not at all. A write that fails
 * part-way (here, a result that cannot be rendered, after the first rows) leaves the report of the run before.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { writeReport } from '../../src/cli/batch-file.js';
import type { BatchItemResult } from '../../src/index.js';
import { useCleanup } from '../helpers/fixture.js';

const closers = useCleanup();

const complete = (n: number): BatchItemResult => ({
  key: `item-${n}`,
  status: 'complete',
  videoId: `vid_${n}`,
  path: `/out/item-${n}.mp4`,
});

it('a write that fails part-way leaves the old report whole, and no temporary file beside it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'avatar-report-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'report.csv');
  await writeReport(path, [complete(1), { key: 'x', status: 'failed', error: { code: 'face_not_found', message: 'No face, "here"' } }]);
  const before = await readFile(path, 'utf8');
  expect(before.split('\n')).toEqual([
    'key,status,video_id,path,error_code,error_message,segment_ids',
    'item-1,complete,vid_1,/out/item-1.mp4,,,',
    'x,failed,,,face_not_found,"No face, ""here""",',
    '',
  ]);
  // The header is written before the 1,500th result throws.
  const results = Array.from({ length: 2_000 }, (_, n) => complete(n));
  Object.defineProperty(results[1_500], 'key', {
    get: () => {
      throw new Error('unreadable result');
    },
  });
  await expect(writeReport(path, results)).rejects.toThrow('unreadable result');
  expect(await readFile(path, 'utf8')).toBe(before);
  expect(await readdir(dir)).toEqual(['report.csv']);
});
